// With no model endpoint, no usage row claims a model call (a row only for work a model did): THINKING, CHAT small talk, KNOWLEDGE, SEARCH, CODE and DEEP_RESEARCH count no model call and no token.
import { afterEach, describe, expect, it } from "vitest";
import type { RunView } from "../../../lib/engine/views";
import type { ModesContext } from "../types";
import type { Runtime } from "../../../lib/runtime";
import { noModelCalls as rowsOf } from "../../../test/support/offline-usage";
import { workflowRuntime } from "../../../test/helpers";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});
const settled = (r: RunView) => r.status !== "running";
const noModelCalls = (ids: string[]) => rowsOf(rt!, ids);

describe("offline: no usage row claims a model call", () => {
  it("processing-modes: THINKING and CHAT small talk", async () => {
    rt = await workflowRuntime("processing-modes");
    const t = await rt.engine.waitFor((await rt.engine.start("processing-modes", { query: "Should we shard the database now?", mode: "THINKING" })).run.id, settled);
    expect((t.context as ModesContext).metrics?.llmCalls).toBe(0);
    const hi = await rt.engine.waitFor((await rt.engine.start("processing-modes", { query: "Hi!" })).run.id, settled);
    const hc = hi.context as ModesContext;
    expect(hc.routing?.mode).toBe("CHAT");
    expect(hc.result?.text).toMatch(/No language model is configured/);
    expect(hc.result?.text).toMatch(/Settings/);
    expect(hc.metrics?.llmCalls).toBe(0);
    await noModelCalls([t.id, hi.id]);
  }, 60_000);
  it("processing-modes: KNOWLEDGE, SEARCH, CODE and DEEP_RESEARCH (its plan, tasks, summaries and report)", async () => {
    rt = await workflowRuntime("processing-modes");
    const ids: string[] = [];
    for (const [mode, query] of [
      ["KNOWLEDGE", "How does Switchyard resume runs after a restart?"],
      ["SEARCH", "durable timers in workflow engines"],
      ["CODE", "```js\nconsole.log(6 * 7)\n```"],
      ["DEEP_RESEARCH", "How does Switchyard resume runs after a restart?"],
    ] as const) {
      const r = await rt.engine.waitFor((await rt.engine.start("processing-modes", { query, mode })).run.id, settled, 30_000);
      expect(r.status, mode).toBe("completed");
      const c = r.context as ModesContext;
      expect(c.metrics?.llmCalls, mode).toBe(0);
      ids.push(r.id);
      if (mode === "DEEP_RESEARCH") {
        expect(c.research?.plan?.adapter).toBe("offline engine");
        expect(c.research?.tasks.every((t) => t.adapter === "offline engine")).toBe(true);
        expect(c.result?.adapter).toBe("offline engine");
      }
    }
    await noModelCalls(ids);
  }, 90_000);
});
