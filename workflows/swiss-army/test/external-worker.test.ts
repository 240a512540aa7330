// swiss-army's effects sent to an external queue (SWITCHYARD_EXTERNAL_EFFECTS): EXECUTING answered
// by a worker outside Switchyard, and its own effects' outputs accepted by its output schemas.
import { afterEach, describe, expect, it } from "vitest";
import type { RunView } from "../../../lib/engine/views";
import type { Runtime } from "../../../lib/runtime";
import { ownOutputsPass, taskWorker } from "../../../test/support/task-worker";
import type { SwissContext } from "../types";
import { swissRuntime } from "./support";

const KEY = Symbol.for("switchyard.runtime");
let rt: (Runtime & { clock: unknown }) | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
  delete (globalThis as Record<symbol, unknown>)[KEY];
});
const settled = (r: RunView) => r.status !== "running";

describe("swiss-army's effects on external workers", () => {
  it("its own effect outputs pass its schemas (a worker answering as it does is accepted)", async () => {
    await ownOutputsPass("swiss-army", [{ request: "Write a Go program that counts words in a file" }, { request: "Explain the retry policy" }]);
  }, 60_000);

  it("swiss-army's EXECUTING answered by a worker outside Switchyard: its output is the result reviewed; an output that breaks the schema is refused (BUSINESS)", async () => {
    rt = await swissRuntime({ env: { SWITCHYARD_EXTERNAL_EFFECTS: "swiss-army.execute=coders" } as never });
    (globalThis as Record<symbol, unknown>)[KEY] = Promise.resolve(rt);
    const seen: { requestId: string; content: string }[] = [];
    let bad = true;
    const w = taskWorker((t) => {
      const input = t.input as unknown as { requestId: string; content: string };
      seen.push(input);
      const record = { type: "execution", request_id: input.requestId, status: "completed", progress_updates: ["team coder wrote it"], patterns_applied: [], execution_duration_ms: 12, result_preview: "func main() {}", adapter: "team-coder" };
      if (bad) {
        bad = false;
        return { output: "package main", record: { ...record, status: "done" }, tokens_used: -1 };
      }
      return { output: "package main\n\nfunc main() {}", record, tokens_used: 42 };
    }, "coders");
    try {
    const { run } = await rt.engine.start("swiss-army", { request: "Write a Go program that prints nothing" });
    const first = await rt.engine.waitFor(run.id, settled, 20_000);
    // the malformed output fails EXECUTING with the schema's message, classified BUSINESS
    const log = (await rt.store.transitions(run.id)).map((t) => JSON.stringify(t.payload ?? null)).join("\n");
    expect(log).toMatch(/the worker's output for swiss-army\.execute is not valid: /);
    expect(log).toMatch(/record\.status: /);
    expect(log).toMatch(/tokens_used: /);
    // the cycle ended (back to IDLE) with nothing of the refused output in the run's context
    expect(first.state).toEqual(["IDLE"]);
    expect((first.context as SwissContext).output).toBe("");
    expect((first.context as SwissContext).last?.outcome).toBe("failed");
    await rt.engine.send(run.id, { type: "REQUEST", request: "Write a Go program that prints nothing" });
    const done = await rt.engine.waitFor(run.id, (r) => r.state.includes("HUMAN_REVIEW"), 20_000);
    const ctx = done.context as SwissContext;
    expect(ctx.output).toBe("package main\n\nfunc main() {}");
    expect(ctx.records.execution).toMatchObject({ adapter: "team-coder", request_id: seen[1]!.requestId });
    expect(seen[0]!.content).toContain("Write a Go program");
    const rows = await rt.tasks.store.list({ runId: run.id });
    expect(rows.length).toBe(seen.length);
    expect(rows.every((r) => r.effect === "execute" && r.workflow === "swiss-army" && r.queue === "coders")).toBe(true);
    } finally {
      await w.stop();
    }
  }, 40_000);
});
