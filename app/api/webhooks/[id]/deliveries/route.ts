import { handler, json, parse, query } from "@/lib/api/http";
import { DeliveryListQuery, listDeliveries, WebhookIdParam } from "@/lib/api/webhooks";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** `?limit=` (1–500, default 50) → `{ deliveries }`, newest first. */
export const GET = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(WebhookIdParam, await ctx.params);
  const q = parse(DeliveryListQuery, query(req));
  return json(await listDeliveries(await getRuntime(), id, q));
});
