import { handler, json, parse, query, readJson } from "@/lib/api/http";
import { CreateWebhookBody, createWebhook, listWebhooks, WebhookListQuery } from "@/lib/api/webhooks";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** `?workflow=` → the webhooks that fire for it (its own and the "*" ones): `{ webhooks }`. */
export const GET = handler(async (req: Request) => {
  const q = parse(WebhookListQuery, query(req));
  return json(await listWebhooks(await getRuntime(), q));
});

/** `{ workflow, url, secret, events }` → 201 `{ webhook }` (with a secretHint, never the secret). */
export const POST = handler(async (req: Request) => {
  const body = parse(CreateWebhookBody, await readJson(req));
  const out = await createWebhook(await getRuntime(), body);
  return json(out, 201, { location: `/api/webhooks/${out.webhook.id}` });
});
