// With no model endpoint, every answer the offline engine gives in a model call's place records one offline usage row: conversation asks none.
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../../lib/runtime";
import { offlineRows as rowsOf } from "../../../test/support/offline-usage";
import { workflowRuntime } from "../../../test/helpers";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});
const offlineRows = (ids: string[]) => rowsOf(rt!, ids);

describe("offline: one offline usage row per offline answer, no model call, no token", () => {
  it("conversation: no model step, no row", async () => {
    rt = await workflowRuntime("conversation", { seedGuide: false });
    const { run } = await rt.engine.start("conversation", { task: "Fix the failing login test" });
    await rt.engine.send(run.id, { type: "MESSAGE", text: "Now implement the change and fix the bug" });
    expect(await offlineRows([run.id])).toEqual([]);
  });
});
