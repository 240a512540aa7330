// With no model endpoint, every answer the offline engine gives in a model call's place records one offline usage row (no tokens, no model call); the execution record still says who wrote it.
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../../lib/runtime";
import { offlineRows as rowsOf } from "../../../test/support/offline-usage";
import { swissRuntime } from "./support";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});
const offlineRows = (ids: string[]) => rowsOf(rt!, ids);

describe("offline: one offline usage row per offline answer, no model call, no token", () => {
  it("swiss-army: PARSE, EXECUTING and CONTEXT_UPDATE offline, no tokens", async () => {
    rt = await swissRuntime();
    const { run } = await rt.engine.start("swiss-army", { request: "Write a function that retries a fetch with exponential backoff" });
    const r = await rt.engine.waitFor(run.id, (x) => x.state.includes("HUMAN_REVIEW"));
    // one offline row per offline answer: PARSE's analysis, EXECUTING's output, CONTEXT_UPDATE's patterns
    expect(await offlineRows([r.id])).toEqual(["CONTEXT_UPDATE extract-patterns", "EXECUTING execute", "REQUEST_RECEIVED parse"]);
    expect((r.context as { records: { execution?: { adapter: string } } }).records.execution?.adapter).toBe("offline engine");
    expect((r.context as { tokens: number }).tokens).toBe(0);
  });
});
