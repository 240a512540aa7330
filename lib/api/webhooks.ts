// Webhook use-cases behind /api/webhooks: register, list, delete, the delivery log, redeliver.
// Every view comes from lib/hooks/webhooks.ts and carries a secretHint, never the secret.
import { z } from "zod";
import { WebhookFields } from "../hooks/webhooks";
import type { Runtime } from "../runtime-types";

const opaqueId = (what: string) =>
  z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9_-]+$/, `not a ${what} id`);

export const WebhookIdParam = z.object({ id: opaqueId("webhook") });
export const DeliveryIdParam = z.object({ id: opaqueId("delivery") });

export const WebhookListQuery = z.object({ workflow: WebhookFields.workflow.optional() }).strict();

export const CreateWebhookBody = z.object(WebhookFields).strict();
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

export const DeliveryListQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).optional() }).strict();

export async function listWebhooks(rt: Runtime, q: { workflow?: string }) {
  return { webhooks: await rt.webhooks.listWebhooks(q.workflow) };
}

export async function createWebhook(rt: Runtime, body: CreateWebhookBody) {
  return { webhook: await rt.webhooks.createWebhook(body) };
}

export async function getWebhook(rt: Runtime, id: string) {
  return { webhook: await rt.webhooks.getWebhook(id) };
}

export async function deleteWebhook(rt: Runtime, id: string) {
  await rt.webhooks.deleteWebhook(id);
}

export async function listDeliveries(rt: Runtime, webhookId: string, q: { limit?: number }) {
  return { deliveries: await rt.webhooks.deliveries(webhookId, q.limit ?? 50) };
}

export async function redeliver(rt: Runtime, deliveryId: string) {
  return { delivery: await rt.webhooks.redeliver(deliveryId) };
}
