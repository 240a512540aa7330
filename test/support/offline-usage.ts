// The recording rule (lib/llm/recording.ts): a usage row only for work a model did. With no model
// endpoint, these runs have no row at all, and their usage says no model call and no token (each
// workflow's offline-usage test checks its runs; the step's own output still says "offline engine").
import { expect } from "vitest";
import { runUsage } from "../../lib/metrics/model-usage";
import type { Runtime } from "../../lib/runtime";

export async function noModelCalls(rt: Runtime, runIds: string[]): Promise<void> {
  const rows = await rt.db.modelCall.findMany({ where: { runId: { in: runIds } } });
  expect(rows.map((r) => `${r.state} ${r.purpose} (${r.adapter})`)).toEqual([]);
  for (const id of runIds) expect((await runUsage(rt.db, id)).total).toMatchObject({ calls: 0, promptTokens: 0, completionTokens: 0 });
}
