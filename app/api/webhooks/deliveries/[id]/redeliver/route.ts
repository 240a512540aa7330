import { handler, json, parse } from "@/lib/api/http";
import { DeliveryIdParam, redeliver } from "@/lib/api/webhooks";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** Queue a delivered or failed delivery again: 202 `{ delivery }` (pending); 409 when it is already pending. */
export const POST = handler(async (_req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(DeliveryIdParam, await ctx.params);
  return json(await redeliver(await getRuntime(), id), 202);
});
