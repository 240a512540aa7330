// With no model endpoint, no usage row claims a model call: the rows of these runs are the offline
// engine's, with no tokens, model or endpoint (each workflow's offline-usage test checks its runs).
import { expect } from "vitest";
import { runUsage } from "../../lib/metrics/model-usage";
import type { Runtime } from "../../lib/runtime";

export async function noModelCalls(rt: Runtime, runIds: string[]) {
  const rows = await rt.db.modelCall.findMany({ where: { runId: { in: runIds } } });
  for (const r of rows) {
    expect(r.adapter, `${r.state} ${r.purpose}`).toBe("offline engine");
    expect([r.promptTokens, r.completionTokens, r.model, r.endpoint]).toEqual([0, 0, null, null]);
  }
  for (const id of runIds) expect((await runUsage(rt.db, id)).total).toMatchObject({ calls: 0, promptTokens: 0, completionTokens: 0 });
  return rows;
}
