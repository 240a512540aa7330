// The post pipeline survives SIGKILL: a real child process runs it on SQLite and is
// killed (a) right after the second approval's commit, before PUBLISH's call, (b) while the
// receiver holds PUBLISH's call unanswered, (c) right after PUBLISH's result is committed. A new
// runtime on the same database then finishes the run. What holds:
//   (a) the call is made once, after the restart;
//   (b) the call is made again with the same Idempotency-Key (the first may have been acted on):
//       a receiver that honours the key publishes the post once;
//   (c) a completed step is never repeated: no second call.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunView } from "../lib/engine/views";
import { flush, tempDbUrl, testRuntime } from "./helpers";
import { Receiver } from "./support/post-pipeline";

const open: { close: () => Promise<void> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

function child(url: string, publishUrl: string, mode: string): { proc: ChildProcess; done: Promise<{ signal: NodeJS.Signals | null; out: string }> } {
  // node itself runs the script (tsx as a loader), so the kill reaches the process that runs the engine
  const proc = spawn(process.execPath, ["--import", "tsx", path.resolve("test/support/pipeline-crash.ts"), url, publishUrl, mode], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout!.on("data", (c: Buffer) => (out += c.toString()));
  proc.stderr!.on("data", (c: Buffer) => (out += c.toString()));
  return { proc, done: new Promise((resolve) => proc.on("exit", (_code, signal) => resolve({ signal, out }))) };
}

const runIdOf = (out: string) => (JSON.parse(out.split("\n").find((l) => l.startsWith('{"runId"'))!) as { runId: string }).runId;
const steps = (r: RunView) => (r.context as { steps: Record<string, { output?: unknown; by?: string }> }).steps;

async function crashAndResume(mode: "after-approval" | "during-publish" | "after-publish") {
  const rx = await new Receiver().start();
  open.push(rx);
  const url = tempDbUrl(`pipeline-crash-${mode}`);
  const c = child(url, rx.url, mode);
  if (mode === "during-publish")
    rx.onRequest = () => {
      if (rx.requests.length > 1) return true;
      c.proc.kill("SIGKILL"); // the call arrived; its process dies before any answer
      return false;
    };
  const crash = await c.done;
  expect(crash.signal, crash.out).toBe("SIGKILL");
  const runId = runIdOf(crash.out);
  const before = rx.requests.length;
  const rt = await testRuntime({ url });
  open.push(rt);
  const notified = await rt.engine.waitFor(runId, (r) => r.state.includes("NOTIFY"), 30_000);
  const transitions = await rt.store.transitions(runId);
  return { rx, before, notified, transitions, rt, runId };
}

describe("SIGKILL in the post pipeline", () => {
  it("after the second approval commits, before the publish: the post is sent once, after the restart", async () => {
    const { rx, before, notified, transitions, runId } = await crashAndResume("after-approval");
    expect(before).toBe(0);
    expect(rx.requests).toHaveLength(1);
    expect(rx.requests[0]!.key).toMatch(new RegExp(`^${runId}:`));
    expect(rx.posts.size).toBe(1);
    expect(steps(notified).PUBLISH).toMatchObject({ output: { id: "post-1", published: true }, by: "http 200" });
    // the approvals were not asked for again: the run went on from its committed state
    expect(transitions.filter((t) => t.event === "APPROVE")).toHaveLength(2);
  }, 60_000);

  it("while the publish call is unanswered: it is sent again with the same Idempotency-Key, and published once", async () => {
    const { rx, before, notified } = await crashAndResume("during-publish");
    expect(before).toBe(1);
    expect(rx.requests).toHaveLength(2);
    expect(rx.requests[1]!.key).toBe(rx.requests[0]!.key);
    expect(rx.requests[1]!.body).toEqual(rx.requests[0]!.body);
    expect(rx.posts.size).toBe(1);
    expect(steps(notified).PUBLISH!.output).toEqual({ id: "post-1", published: true });
  }, 60_000);

  it("after the publish result commits: the completed step is not run again", async () => {
    const { rx, before, notified, rt, runId } = await crashAndResume("after-publish");
    expect(before).toBe(1);
    // the resumed run has settled at NOTIFY: a wrongly repeated call would have been made (the end of the test checks again)
    await flush();
    expect(rx.requests).toHaveLength(1);
    expect(steps(notified).PUBLISH!.output).toEqual({ id: "post-1", published: true });
    // a worker completes NOTIFY; the run ends, and still nothing more was sent
    const task = await rt.tasks.claim("publisher", "mailer-1", 5_000);
    expect(task).toMatchObject({ runId, stage: "NOTIFY" });
    await rt.tasks.complete(task!.id, { notified: true }, { leaseToken: task!.leaseToken });
    expect((await rt.engine.waitFor(runId, (r) => r.status === "completed")).state).toEqual(["DONE"]);
    expect(rx.requests).toHaveLength(1);
  }, 60_000);
});
