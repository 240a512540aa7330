import { handler, json, parse, query, readJson } from "@/lib/api/http";
import { listRuns, startRun } from "@/lib/api/runs";
import { RunListQuery, StartRunBody } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export const POST = handler(async (req: Request) => {
  const body = parse(StartRunBody, await readJson(req));
  const rt = await getRuntime();
  const run = await startRun(rt, body.workflow, body.input ?? {});
  return json(run, 201, { location: `/api/runs/${run.id}` });
});

export const GET = handler(async (req: Request) => {
  const q = parse(RunListQuery, query(req));
  const rt = await getRuntime();
  return json(await listRuns(rt, { ...q, waiting: q.waiting === undefined ? undefined : q.waiting === "true", retrying: q.retrying === "true" || undefined }));
});
