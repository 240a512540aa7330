// With no model endpoint, no usage row claims a model call (a row only for work a model did): none.
import { afterEach, describe, expect, it } from "vitest";
import type { Runtime } from "../../../lib/runtime";
import { noModelCalls as rowsOf } from "../../../test/support/offline-usage";
import { workflowRuntime } from "../../../test/helpers";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});
const noModelCalls = (ids: string[]) => rowsOf(rt!, ids);

describe("offline: no usage row claims a model call", () => {
  it("conversation: no model step, no row", async () => {
    rt = await workflowRuntime("conversation", { seedGuide: false });
    const { run } = await rt.engine.start("conversation", { task: "Fix the failing login test" });
    await rt.engine.send(run.id, { type: "MESSAGE", text: "Now implement the change and fix the bug" });
    await noModelCalls([run.id]);
  });
});
