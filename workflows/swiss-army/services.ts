// swiss-army's own service: the Context Manager (context-manager/), which the runtime creates once
// per process from its ports (builtIn({ services }), lib/machines/services.ts). It seeds the shipped
// solution patterns at boot, flushes the writes queued while it was unavailable every 10 s (in
// cluster mode one worker per window), reports itself in GET /api/health, and has its flush done
// before the process stops.
import type { ServicePorts, Services, WorkflowService } from "../../lib/machines/services";
import { ContextManager } from "./context-manager/context-manager";
import { swissArmy } from "./machine";

/** how often queued Context Manager writes are flushed (ms) */
export const OUTBOX_FLUSH_MS = 10_000;

export function swissServices(ports: ServicePorts) {
  const cm = new ContextManager(ports.db, ports.clock, ports.dialect);
  const lifecycle = {
    start: () => cm.seed(),
    chores: { outbox: { everyMs: OUTBOX_FLUSH_MS, run: () => cm.flushOutbox() } },
    health: async () => ({ contextManager: await cm.status() }),
    idle: () => cm.idle(),
  } satisfies WorkflowService;
  return { cm, ...lifecycle };
}

export type SwissServices = ReturnType<typeof swissServices>;

/** The Context Manager of a runtime (its panel, its actions, tests). */
export function contextManagerOf(rt: { services: Services }): ContextManager {
  return rt.services.of<SwissServices>(swissArmy.id).cm;
}
