// With no model endpoint, every answer the offline engine gives in a model call's place records one offline usage row (no tokens, no model call): the plan, the sub-agents, the reflection and the report.
import { afterEach, describe, expect, it } from "vitest";
import type { RunView } from "../../../lib/engine/views";
import type { ResearchContext } from "../types";
import type { Runtime } from "../../../lib/runtime";
import { offlineRows as rowsOf } from "../../../test/support/offline-usage";
import { researchRuntime } from "./support";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});
const settled = (r: RunView) => r.status !== "running";
const offlineRows = (ids: string[]) => rowsOf(rt!, ids);

describe("offline: one offline usage row per offline answer, no model call, no token", () => {
  it("deep-research: plan, sub-agents, reflection and report", async () => {
    rt = await researchRuntime();
    const { run } = await rt.engine.start("deep-research", { topic: "How do durable workflow engines recover from crashes?", config: { checkinEvery: 0, maxIterations: 12, maxReflections: 1 } });
    const w = await rt.engine.waitFor(run.id, settled);
    await rt.engine.decide(w.reviewId!, { decision: "approve" });
    const done = await rt.engine.waitFor(run.id, settled, 30_000);
    const c = done.context as ResearchContext;
    expect(c.report).toBeTruthy();
    expect(c.reportAdapter).toBe("offline engine");
    expect(c.tokens).toBe(0);
    // the summary quotes prose: no command or code block
    const summary = c.report!.split("## Summary")[1]!.split("\n## ")[0]!;
    expect(summary).not.toMatch(/curl|```|\$ /);
    expect(c.report).not.toMatch(/High confidence/);
    // one offline row per offline answer: the plan, each search task's queries, each sub-agent's
    // result (a sub-agent that found nothing gave no answer: no row), the reflection and the report
    const rows = await offlineRows([run.id]);
    const count = (row: string) => rows.filter((r) => r === row).length;
    const search = c.tasks.filter((t) => t.type === "Search");
    expect(count("RESEARCHING.working search-queries")).toBe(search.reduce((n, t) => n + (t.attempts ?? 0), 0));
    expect(count("RESEARCHING.working sub-agent")).toBe(c.tasks.filter((t) => t.type !== "Planning" && t.status === "COMPLETED").length);
    expect(count("RESEARCHING.working sub-agent")).toBeGreaterThan(search.length);
    expect(rows.filter((r) => !r.startsWith("RESEARCHING.working "))).toEqual(["PLANNING.generating plan", "REFLECTING reflect", "SYNTHESIZING synthesize"]);
  }, 60_000);
});
