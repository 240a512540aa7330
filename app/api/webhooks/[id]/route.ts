import { handler, json, parse } from "@/lib/api/http";
import { deleteWebhook, getWebhook, WebhookIdParam } from "@/lib/api/webhooks";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export const GET = handler(async (_req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(WebhookIdParam, await ctx.params);
  return json(await getWebhook(await getRuntime(), id));
});

/** Deletes the webhook and its delivery log: 204, or 404 for an unknown id. */
export const DELETE = handler(async (_req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(WebhookIdParam, await ctx.params);
  await deleteWebhook(await getRuntime(), id);
  return new Response(null, { status: 204 });
});
