import { handler, json, parse, query, readJson } from "@/lib/api/http";
import { EvalBody, EvalListQuery, listEvals, startEval } from "@/lib/change/evals";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** Evaluate a candidate against the decisions reviewers made: 202 { id }; it runs on, GET /api/evals/{id} reads it. */
export const POST = handler(async (req: Request) => {
  const body = parse(EvalBody, await readJson(req));
  const { id } = await startEval(await getRuntime(), body);
  return json({ id }, 202, { location: `/api/evals/${id}` });
});

/** The evaluations, newest first (`?workflow=` for one workflow's). */
export const GET = handler(async (req: Request) => {
  const q = parse(EvalListQuery, query(req));
  return json({ evals: await listEvals(await getRuntime(), q.workflow) });
});
