import { HttpError, handler, json, parse, principalOf, readJson } from "@/lib/api/http";
import { ClaimBody } from "@/lib/api/tasks";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/**
 * POST { queue, worker, waitMs? } → 200 { id, runId, stage, input, attempt, leaseMs, leaseToken }, or 204
 * when none came within waitMs. A worker token bound to queues (`npm run user -- token … --queues a,b`)
 * may claim from those only: 403 `queue_not_allowed` for another.
 */
export const POST = handler(async (req: Request) => {
  const body = parse(ClaimBody, await readJson(req));
  const who = principalOf(req);
  if (who?.queues && !who.queues.includes(body.queue)) {
    throw new HttpError(`token ${who.tokenName ?? "?"} of ${who.name} may claim from ${who.queues.join(", ")} only, not from ${body.queue}`, 403, "queue_not_allowed");
  }
  const rt = await getRuntime();
  const task = await rt.tasks.claim(body.queue, body.worker, body.waitMs ?? 0, req.signal);
  return task ? json(task) : new Response(null, { status: 204 });
});
