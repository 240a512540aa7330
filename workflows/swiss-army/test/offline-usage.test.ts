// With no model endpoint, no usage row claims a model call (a row only for work a model did): EXECUTING is the offline engine's, with no tokens and no row; its record still says who wrote it.
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../../lib/runtime";
import { noModelCalls as rowsOf } from "../../../test/support/offline-usage";
import { swissRuntime } from "./support";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});
const noModelCalls = (ids: string[]) => rowsOf(rt!, ids);

describe("offline: no usage row claims a model call", () => {
  it("swiss-army: EXECUTING offline, no tokens", async () => {
    rt = await swissRuntime();
    const { run } = await rt.engine.start("swiss-army", { request: "Write a function that retries a fetch with exponential backoff" });
    const r = await rt.engine.waitFor(run.id, (x) => x.state.includes("HUMAN_REVIEW"));
    await noModelCalls([r.id]);
    expect((r.context as { records: { execution?: { adapter: string } } }).records.execution?.adapter).toBe("offline engine");
    expect((r.context as { tokens: number }).tokens).toBe(0);
  });
});
