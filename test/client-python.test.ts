// clients/python/switchyard.py (stdlib only, on PYTHONPATH) against a real server: the app's route
// handlers behind an HTTP server in this process (test/support/app-server.ts), the module in
// python3 child processes (test/support/python/*.py). Runs and reviews; work(queue, handler,
// concurrency=4) over many tasks, each completed exactly once; heartbeats that keep a held task's
// lease (the server's clock is moved, the heartbeats are waited for); a lost lease whose late result
// is refused; SIGTERM while a task is in hand: it is finished and reported, nothing more is claimed.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import type { ManualClock } from "../lib/engine/clock";
import type { RunView } from "../lib/engine/views";
import type { Runtime } from "../lib/runtime";
import { flush, testRuntime } from "./helpers";
import { serveApp, type AppServer } from "./support/app-server";

const LEASE_MS = 1_500;
const python = spawnSync("python3", ["--version"], { encoding: "utf8" });
const noPython = python.status !== 0 ? `python3 is not available (${python.error?.message ?? python.stderr})` : null;

const REVIEW_FLOW = `id: py-review
initial_stage: REVIEW
stages: [REVIEW, DONE, REDO]
transitions: { REVIEW: [DONE, REDO], DONE: [], REDO: [] }
steps:
  REVIEW:
    review: { prompt: "Ship {{input.text}}?", show: "the release notes", decisions: [approve, reject, edit], approvers: 2 }
    on: { approve: DONE, edit: DONE, reject: REDO }
`;
const externalFlow = (id: string, queue: string) => `id: ${id}
initial_stage: NOTIFY
stages: [NOTIFY, DONE, FAILED]
transitions: { NOTIFY: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  NOTIFY:
    external: { queue: ${queue} }
    retry: { max: 2, backoff_s: 0 }
    next: DONE
    on_error: FAILED
`;

let rt: Runtime & { clock: ManualClock };
let server: AppServer;
const children = new Set<ChildProcess>();

beforeAll(async () => {
  if (noPython) return;
  rt = await testRuntime({ env: { SWITCHYARD_TASK_LEASE_MS: String(LEASE_MS) } as unknown as NodeJS.ProcessEnv });
  await saveUserWorkflow(rt.db, "yaml", REVIEW_FLOW);
  await saveUserWorkflow(rt.db, "yaml", externalFlow("py-many", "py-many"));
  await saveUserWorkflow(rt.db, "yaml", externalFlow("py-hold", "py-hold"));
  server = await serveApp(rt);
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await server?.close();
  await rt?.close();
});

/** A Python program on the module (PYTHONPATH=clients/python), its output as it comes. */
function py(script: string, ...args: string[]) {
  const child = spawn("python3", [path.join("test/support/python", script), ...args], { env: { ...process.env, PYTHONPATH: path.resolve("clients/python"), PYTHONUNBUFFERED: "1", SWITCHYARD_URL: server.url }, stdio: ["pipe", "pipe", "pipe"] });
  children.add(child);
  const io = { out: "", err: "" };
  child.stdout!.on("data", (d) => (io.out += d));
  child.stderr!.on("data", (d) => (io.err += d));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  /** the JSON the program printed last */
  const result = async <T,>() => {
    const code = await exited;
    expect(code, `exit ${code}\n${io.out}\n${io.err}`).toBe(0);
    return JSON.parse(io.out.trim().split("\n").at(-1)!) as T;
  };
  return { child, io, exited, result };
}

const steps = (r: RunView) => (r.context as { steps: Record<string, { output?: unknown; by?: string }> }).steps;
async function queued(workflow: string, n: number) {
  const runs = [];
  for (let i = 0; i < n; i++) runs.push((await rt.engine.start(workflow, { text: `${workflow} ${i}` })).run);
  await vi.waitFor(async () => expect((await rt.tasks.store.list({ queue: workflow, status: "queued", limit: 1_000 })).length).toBeGreaterThanOrEqual(n), { timeout: 20_000 });
  return runs;
}

describe.skipIf(!!noPython)(`the Python module${noPython ? ` (skipped: ${noPython})` : ""}`, () => {
  it("starts and reads runs, lists and decides reviews; refusals are SwitchyardErrors with the server's status and message", async () => {
    type Seen = {
      run: { id: string; status: string };
      same: boolean;
      waiting: string[];
      review: { decisions: string[]; approvals: unknown; decisionSchemas: Record<string, unknown> };
      first: { decision: string; reviewer: string };
      approvals: unknown;
      twice: { status: number; message: string };
      invalid: { status: number; path: string };
      after_edit: string[];
      third: unknown;
      edited: string;
      done: { status: string; context: { steps: Record<string, { output?: unknown }> } };
      missing: { status: number; message: string };
      down: { status: number; code: string };
      total: number;
    };
    const seen = await py("runs_and_reviews.py", server.url).result<Seen>();
    expect(seen.same).toBe(true);
    expect(seen.waiting).toEqual(["REVIEW"]);
    expect(seen.review).toMatchObject({ decisions: ["approve", "reject", "edit"], approvals: { so_far: 0, needed: 2, by: [] } });
    expect(Object.keys(seen.review.decisionSchemas)).toEqual(["approve", "reject", "edit"]);
    expect(seen.first).toMatchObject({ decision: "approve", reviewer: "ana" });
    expect(seen.approvals).toEqual({ so_far: 1, needed: 2, by: ["ana"] });
    expect(seen.twice).toMatchObject({ status: 409, message: expect.stringMatching(/ana has already approved/) });
    expect(seen.invalid).toEqual({ status: 422, path: "modifications.0" });
    // the edit is ben's approval of the new value; ana approves it
    expect(seen.after_edit).toEqual(["REVIEW"]);
    expect(seen.third).toEqual({ so_far: 1, needed: 2, by: ["ben"] });
    expect(seen.edited).toBe("completed");
    expect(seen.done.context.steps.REVIEW!.output).toBe("v1.3");
    expect(seen.missing).toMatchObject({ status: 404 });
    expect(seen.down).toEqual({ status: 0, code: "network" });
    expect(seen.total).toBe(1);
    expect((await rt.store.getRun(seen.run.id))!.status).toBe("completed");
  });

  it("work(queue, handler, concurrency=4) over 40 tasks: four side by side, each task completed exactly once; SIGTERM stops it cleanly", async () => {
    const runs = await queued("py-many", 40);
    const p = py("work_many.py", "py-many");
    const done = await Promise.all(runs.map((r) => rt.engine.waitFor(r.id, (x) => x.status === "completed")));
    p.child.kill("SIGTERM");
    const { stats, most, handled } = await p.result<{ stats: Record<string, number>; most: number; handled: string[] }>();
    expect(stats).toEqual({ claimed: 40, completed: 40, failed: 0, lost: 0 });
    expect(most).toBe(4);
    expect(handled).toHaveLength(40);
    expect(new Set(handled).size).toBe(40);
    expect(done.map((r) => steps(r).NOTIFY!.output)).toEqual(runs.map((_, i) => ({ echoed: `py-many ${i}`, attempt: 1 })));
    for (const r of done) expect(steps(r).NOTIFY!.by).toBe("worker py-many");
    const tasks = await rt.tasks.store.list({ queue: "py-many", limit: 1_000 });
    expect(tasks).toHaveLength(40);
    expect(tasks.every((t) => t.status === "done" && t.attempt === 1 && t.settledBy === "py-many")).toBe(true);
    // one NOTIFY → DONE per run: no result was taken twice
    for (const r of runs) expect((await rt.store.transitions(r.id)).filter((t) => t.to.includes("DONE"))).toHaveLength(1);
  }, 90_000);

  it("heartbeats keep a held task's lease; SIGTERM while it is in hand: finished, reported, nothing more claimed", async () => {
    const [a, b] = await queued("py-hold", 2);
    const p = py("work_hold.py", "py-hold");
    await vi.waitFor(() => expect(p.io.out, p.io.err).toMatch(/started /), { timeout: 20_000 });
    const heldRun = /started (\S+)/.exec(p.io.out)![1]!;
    const other = heldRun === a!.id ? b! : a!;
    const [held] = await rt.tasks.store.list({ runId: heldRun });
    // three leases go by on the server's clock; after each step the worker's heartbeat moves the lease on
    for (let i = 0; i < 4; i++) {
      rt.clock.advance(LEASE_MS * 0.8);
      const now = rt.clock.now();
      await vi.waitFor(async () => expect((await rt.tasks.store.get(held!.id))!.leaseUntil).toBe(now + LEASE_MS), { timeout: 10_000 });
    }
    // a competitor gets the other (queued) task, never the held one
    const competitor = await rt.tasks.claim("py-hold", "competitor");
    expect(competitor?.runId).toBe(other.id);
    expect(await rt.tasks.claim("py-hold", "competitor")).toBeNull();
    await rt.tasks.cancel(competitor!.id); // withdrawn: nothing more for the worker to find
    // SIGTERM with the task in hand, then the handler finishes: reported, and the worker leaves
    p.child.kill("SIGTERM");
    await vi.waitFor(() => expect(p.io.err).toMatch(/stopping \(SIGTERM\)/), { timeout: 10_000 });
    p.child.stdin!.write("go\n");
    const { stats } = await p.result<{ stats: Record<string, number> }>();
    expect(stats).toEqual({ claimed: 1, completed: 1, failed: 0, lost: 0 });
    expect(p.io.out).toMatch(new RegExp(`kept ${heldRun} stopping`));
    const finished = await rt.engine.waitFor(heldRun, (r) => r.status === "completed");
    expect(steps(finished).NOTIFY!.output).toEqual({ held: heldRun, attempt: 1 });
    await rt.engine.abort(other.id, "test done");
  }, 90_000);

  it("a lease that ran out and went to another worker: the heartbeat says lost, the late result is refused and counted lost", async () => {
    const [run] = await queued("py-hold", 1);
    const p = py("work_hold.py", "py-hold");
    await vi.waitFor(() => expect(p.io.out).toContain(`started ${run!.id}`), { timeout: 20_000 });
    const [task] = await rt.tasks.store.list({ runId: run!.id });
    // the worker's heartbeats stop reaching the server in time: its lease runs out, another worker takes the task
    // (a heartbeat landing between the clock's move and the claim renews it: move and claim again)
    const rescuer = await vi.waitFor(async () => {
      rt.clock.advance(LEASE_MS * 5);
      const c = await rt.tasks.claim("py-hold", "rescuer");
      expect(c).not.toBeNull();
      return c!;
    });
    expect(rescuer).toMatchObject({ id: task!.id, attempt: 2 });
    await vi.waitFor(() => expect(p.io.err).toMatch(/heartbeat of task .* failed/), { timeout: 10_000 });
    await rt.tasks.complete(rescuer!.id, { by: "rescuer" }, { leaseToken: rescuer!.leaseToken });
    p.child.kill("SIGTERM");
    p.child.stdin!.write("go\n");
    const { stats } = await p.result<{ stats: Record<string, number> }>();
    expect(stats).toEqual({ claimed: 1, completed: 0, failed: 0, lost: 1 });
    expect(p.io.out).toContain(`lost ${run!.id}`);
    expect(p.io.err).toMatch(/the server did not take the result/);
    const done = await rt.engine.waitFor(run!.id, (r) => r.status === "completed");
    expect(steps(done).NOTIFY!.output).toEqual({ by: "rescuer" });
    await flush();
  }, 60_000);
});
