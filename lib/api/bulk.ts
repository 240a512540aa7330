// POST /api/runs/bulk: abort or retry many runs, by id or by a runs-list filter, with one result
// per run. Each run is taken as one by one would take it: abort is abortRun (a finished or
// imported run refuses), retry is the failed run's page's "Retry from <state>" (lib/api/failure.ts:
// a fork at the failing step with the same input; only a failed run with a step to retry).
import { z } from "zod";
import { isEngineError } from "../engine/errors";
import { findWorkflow } from "../machines/registry";
import type { Runtime } from "../runtime";
import { runFailure } from "./failure";
import { abortRun, forkRun, runFiltersOf, storeQuery } from "./runs";
import { RunListQuery } from "./schemas";

/** the most runs one request may act on */
export const BULK_MAX = 1_000;

const runId = z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, "not a run id");

export const BulkBody = z
  .object({
    action: z.enum(["abort", "retry"], { error: 'action must be "abort" or "retry"' }),
    ids: z.array(runId, { error: "ids must be a list of run ids" }).min(1, "ids needs at least one run").max(BULK_MAX, `at most ${BULK_MAX} runs`).optional(),
    /** GET /api/runs's query as an object (limit and offset have no meaning here) */
    filter: RunListQuery.omit({ limit: true, offset: true }).optional(),
    reason: z.string().trim().max(2_000, "reason: at most 2,000 characters").optional(),
  })
  .strict()
  .refine((b) => (b.ids === undefined) !== (b.filter === undefined), { message: "send either ids or filter (one of them)" });
export type BulkRequest = z.infer<typeof BulkBody>;

export interface BulkResult {
  id: string;
  ok: boolean;
  /** the new run of a retry */
  runId?: string;
  error?: string;
}

export type BulkAnswer = { status: 200; body: { results: BulkResult[] } } | { status: 422; body: { error: string; code: "too_many"; total: number } };

/** Retry one failed run from its failing step: a fork at that step, the same input. */
async function retryRun(rt: Runtime, id: string, principal?: string): Promise<string> {
  const run = await rt.engine.getRun(id);
  if (run.status !== "failed") throw new Error(`only a failed run is retried; this one is ${run.status}`);
  const row = await rt.store.getRun(id);
  const transitions = (await rt.store.transitions(id)).map((t) => ({ seq: t.seq, from: t.from, to: t.to }));
  const def = findWorkflow(run.workflow, row?.input) as { flow?: Parameters<typeof runFailure>[2] } | undefined;
  const failure = runFailure({ status: run.status, error: row?.error ?? null, context: row?.context ?? null }, transitions, def?.flow ?? null);
  if (!failure?.retry) throw new Error("no failed step to retry from: fork it from its timeline instead");
  const out = await forkRun(rt, id, { seq: failure.retry.seq }, principal);
  return out.run.id;
}

export async function bulkRuns(rt: Runtime, body: BulkRequest, principal?: string): Promise<BulkAnswer> {
  let ids: string[];
  if (body.filter) {
    const listFilter = storeQuery(rt, runFiltersOf(body.filter));
    const count = await rt.store.countRuns(listFilter);
    if (count > BULK_MAX) return { status: 422, body: { error: `${count} runs match this filter; at most ${BULK_MAX} at once: narrow it`, code: "too_many", total: count } };
    ids = (await rt.store.listRuns({ ...listFilter, limit: BULK_MAX, offset: 0 })).map((r) => r.id);
  } else ids = [...new Set(body.ids!)];
  const results: BulkResult[] = [];
  for (const id of ids) {
    try {
      if (body.action === "abort") {
        await abortRun(rt, id, body.reason || undefined);
        results.push({ id, ok: true });
      } else {
        results.push({ id, ok: true, runId: await retryRun(rt, id, principal) });
      }
    } catch (e) {
      results.push({ id, ok: false, error: isEngineError(e) || e instanceof Error ? e.message : String(e) });
    }
  }
  return { status: 200, body: { results } };
}
