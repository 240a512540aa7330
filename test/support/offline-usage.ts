// The recording rule (lib/llm/recording.ts): with no model endpoint, every answer the offline engine
// gives in a model call's place records exactly one usage row marked as offline (the offline
// engine's adapter, no tokens, no model or endpoint), counted as `offline`, never as a model call
// or a token. Each workflow's offline-usage test checks which steps its runs' rows are.
import { expect } from "vitest";
import { runUsage } from "../../lib/metrics/model-usage";
import type { Runtime } from "../../lib/runtime";

/** The runs' usage rows, checked to be offline answers only; as "STATE purpose", sorted. */
export async function offlineRows(rt: Runtime, runIds: string[]): Promise<string[]> {
  const rows = await rt.db.modelCall.findMany({ where: { runId: { in: runIds } } });
  for (const r of rows) {
    expect(r.adapter, `${r.state} ${r.purpose}`).toBe("offline engine");
    expect([r.promptTokens, r.completionTokens, r.model, r.endpoint, r.ok, r.output], `${r.state} ${r.purpose}`).toEqual([0, 0, null, null, true, null]);
  }
  for (const id of runIds) {
    const usage = await runUsage(rt.db, id);
    const mine = rows.filter((r) => r.runId === id).length;
    expect(usage.total).toMatchObject({ calls: 0, offline: mine, promptTokens: 0, completionTokens: 0 });
    expect(usage.calls.every((c) => c.offline)).toBe(true);
  }
  return rows.map((r) => `${r.state} ${r.purpose}`).sort();
}
