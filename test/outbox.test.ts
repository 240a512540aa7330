// The outbox: a step's post-commit actions and webhook deliveries are written in
// the step's own transaction, so a process killed between the commit and the acting loses
// neither. A real SIGKILL (test/support/outbox-crash.ts) right after the APPROVE commit of a
// swiss-army run; the next runtime on the same database runs logDecision exactly once and sends
// every webhook delivery exactly once to a receiver on 127.0.0.1.
import { spawn } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { ManualClock } from "../lib/engine/clock";
import type { ActionFn } from "../lib/engine/engine";
import { OUTBOX_MAX_ATTEMPTS } from "../lib/engine/outbox";
import { createRuntime, defaultEffects, type Runtime } from "../lib/runtime";
import { tempDbUrl } from "./helpers";

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length) await open.pop()!.close();
});

class Receiver {
  ids: string[] = [];
  events: string[] = [];
  url = "";
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      this.ids.push(String(req.headers["x-switchyard-delivery"]));
      this.events.push((JSON.parse(Buffer.concat(chunks).toString("utf8")) as { event: string }).event);
      res.writeHead(200).end("ok");
    });
  });
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    open.push(this);
    return this;
  }
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** A runtime on `url` whose swiss-army logDecision records each call's key before running the real one. */
async function runtime(url: string, calls: string[], opts: { resume?: boolean; send?: boolean; clock?: ManualClock } = {}): Promise<Runtime> {
  const env = {} as NodeJS.ProcessEnv;
  const rt = await createRuntime({
    url,
    env,
    clock: opts.clock,
    migrate: migrateDatabase,
    serviceChoresMs: 0,
    seedGuide: false,
    resume: opts.resume,
    alerts: { start: false },
    webhooks: { start: opts.send ?? true, pollMs: 20, backoffMs: [20, 40], timeoutMs: 5_000 },
    effects: (base) => {
      const all = defaultEffects(base, env);
      const swiss = all["swiss-army"];
      const real = swiss.actions!.logDecision;
      const logDecision: ActionFn = async (a) => {
        calls.push(a.key);
        await real(a);
      };
      return { ...all, "swiss-army": { ...swiss, actions: { ...swiss.actions, logDecision } } };
    },
  });
  open.push(rt);
  return rt;
}

function killedChild(url: string, hookUrl: string): Promise<{ signal: NodeJS.Signals | null; out: string }> {
  // node itself runs the script (tsx as a loader, not its CLI, which would outlive the kill as a parent)
  const child = spawn(process.execPath, ["--import", "tsx", path.resolve("test/support/outbox-crash.ts"), url, hookUrl], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr.on("data", (c: Buffer) => (out += c.toString()));
  return new Promise((resolve) => child.on("exit", (_code, signal) => resolve({ signal, out })));
}

describe("a kill between commit and act", () => {
  it("the next runtime runs the post-commit action exactly once and sends each webhook delivery exactly once", async () => {
    const rx = await new Receiver().start();
    const url = tempDbUrl("outbox");
    const crash = await killedChild(url, rx.url);
    expect(crash.signal, crash.out).toBe("SIGKILL");
    const { runId } = JSON.parse(crash.out.split("\n").find((l) => l.startsWith("{"))!) as { runId: string };
    expect(rx.ids).toEqual([]); // the killed process never sent anything (its dispatcher was not started)

    // what the killed process left: the APPROVE commit, its logDecision in the outbox, its deliveries pending
    const calls: string[] = [];
    const look = await runtime(url, calls, { resume: false, send: false });
    const approve = (await look.store.transitions(runId)).find((t) => t.event === "APPROVE")!;
    expect(approve).toBeDefined();
    const rows = await look.store.outbox({ limit: 10, maxAttempts: OUTBOX_MAX_ATTEMPTS });
    expect(rows.map((r) => [r.key, r.name, r.attempts])).toEqual([[`${runId}:${approve.seq}:logDecision`, "logDecision", 0]]);
    const pending = await look.db.webhookDelivery.findMany({ where: { runId } });
    expect(pending.length).toBeGreaterThan(0);
    expect(pending.every((d) => d.status === "pending")).toBe(true);
    expect(pending.filter((d) => (JSON.parse(d.body) as { seq: number }).seq === approve.seq)).toHaveLength(1);
    expect(await look.db.cmDecision.count()).toBe(0);
    await look.close();
    open.pop();

    // the restart: the action runs once, with its key; every delivery goes out once
    const rt = await runtime(url, calls);
    await rt.engine.outbox.idle();
    expect(calls).toEqual([`${runId}:${approve.seq}:logDecision`]);
    expect(await rt.store.outbox({ limit: 10, maxAttempts: OUTBOX_MAX_ATTEMPTS })).toEqual([]);
    const decisions = await rt.db.cmDecision.findMany();
    expect(decisions.map((d) => [d.key, d.decision])).toEqual([[`${runId}:${approve.seq}:logDecision`, "approved"]]);
    const deadline = Date.now() + 20_000;
    while ((await rt.db.webhookDelivery.count({ where: { runId, status: "delivered" } })) < pending.length) {
      if (Date.now() > deadline) throw new Error("deliveries not sent");
      await new Promise((r) => setTimeout(r, 50));
    }
    await rt.webhooks.idle();
    expect(rx.ids.sort()).toEqual(pending.map((d) => d.id).sort());
    expect(rx.events.filter((e) => e === "APPROVE")).toHaveLength(1);
    const patterns = await rt.db.cmPattern.findMany({ where: { approvals: { gt: 0 } } });
    await rt.close();
    open.pop();

    // a third start finds nothing left to do
    const again = await runtime(url, calls);
    await again.engine.outbox.idle();
    // a poll for due deliveries now finds none
    expect(await again.webhooks.tick()).toBe(0);
    await again.webhooks.idle();
    expect(calls).toHaveLength(1);
    expect(rx.ids).toHaveLength(pending.length);
    expect(await again.db.cmPattern.findMany({ where: { approvals: { gt: 0 } } })).toEqual(patterns);
  }, 120_000);
});

describe("a failing post-commit action", () => {
  it("a failing action keeps its row with the error and is retried with backoff until it succeeds", async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const env = {} as NodeJS.ProcessEnv;
    let failures = 2;
    const calls: string[] = [];
    const rt = await createRuntime({
      url: tempDbUrl("outbox-retry"),
      env,
      clock,
      migrate: migrateDatabase,
      serviceChoresMs: 0,
      seedGuide: false,
      alerts: { start: false },
      webhooks: { start: false },
      effects: (base) => {
        const all = defaultEffects(base, env);
        const swiss = all["swiss-army"];
        const logDecision: ActionFn = async ({ key }) => {
          calls.push(key);
          if (failures-- > 0) throw new Error(`down (${calls.length})`);
        };
        return { ...all, "swiss-army": { ...swiss, actions: { ...swiss.actions, logDecision } } };
      },
    });
    open.push(rt);
    const { run } = await rt.engine.start("swiss-army", { request: "Write a TypeScript function that retries a fetch with exponential backoff and jitter" });
    const waiting = await rt.engine.waitFor(run.id, (r) => r.state.includes("HUMAN_REVIEW") && !!r.reviewId);
    await rt.engine.decide(waiting.reviewId!, { decision: "approve" });
    await rt.engine.outbox.idle();
    let [row] = await rt.store.outbox({ limit: 5, maxAttempts: OUTBOX_MAX_ATTEMPTS });
    expect(row).toMatchObject({ attempts: 1, lastError: "down (1)" });
    clock.advance(1_000); // first backoff: the retry starts inside advance()
    await rt.engine.outbox.idle();
    [row] = await rt.store.outbox({ limit: 5, maxAttempts: OUTBOX_MAX_ATTEMPTS });
    expect(row).toMatchObject({ attempts: 2, lastError: "down (2)" });
    clock.advance(5_000); // second backoff
    await rt.engine.outbox.idle();
    expect(await rt.store.outbox({ limit: 5, maxAttempts: OUTBOX_MAX_ATTEMPTS })).toEqual([]);
    expect(new Set(calls).size).toBe(1); // one key, three attempts
    expect(calls).toHaveLength(3);
  });
});
