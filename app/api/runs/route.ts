import { handler, json, parse, principalOf, query, readJson } from "@/lib/api/http";
import { idempotent, keyedRequest, replayHeaders } from "@/lib/api/idempotency";
import { getRun, listRuns, runFiltersOf, startRun } from "@/lib/api/runs";
import { RunListQuery, StartRunBody } from "@/lib/api/schemas";
import { principalKeyOf } from "@/lib/api/who";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export const POST = handler(async (req: Request) => {
  const raw = await readJson(req);
  const keyed = keyedRequest(req, raw, principalOf(req));
  const body = parse(StartRunBody, raw);
  const rt = await getRuntime();
  // with an Idempotency-Key, a repeat answers with the run the first request started
  const principal = principalKeyOf(principalOf(req), req.headers);
  const a = await idempotent(rt, keyed, 201, (claim) => startRun(rt, body.workflow, body.input ?? {}, { idempotency: claim, principal, name: body.name }), (row) => getRun(rt, row.runId));
  return json(a.body, a.status, replayHeaders(a, { location: `/api/runs/${a.body.id}` }));
});

export const GET = handler(async (req: Request) => {
  const q = parse(RunListQuery, query(req));
  const rt = await getRuntime();
  return json(await listRuns(rt, runFiltersOf(q)));
});
