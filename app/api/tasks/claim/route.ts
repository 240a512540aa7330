import { handler, json, parse, readJson } from "@/lib/api/http";
import { ClaimBody } from "@/lib/api/tasks";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** POST { queue, worker, waitMs? } → 200 { id, runId, stage, input, attempt, leaseMs }, or 204 when none came within waitMs. */
export const POST = handler(async (req: Request) => {
  const body = parse(ClaimBody, await readJson(req));
  const rt = await getRuntime();
  const task = await rt.tasks.claim(body.queue, body.worker, body.waitMs ?? 0, req.signal);
  return task ? json(task) : new Response(null, { status: 204 });
});
