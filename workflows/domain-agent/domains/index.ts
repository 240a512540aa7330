// The registry of domain modules. To add a domain, write a DomainModule in ./modules and list
// it here (domains/README.md walks through it).
import { mood } from "./modules/mood";
import { nutrition } from "./modules/nutrition";
import { recovery } from "./modules/recovery";
import { sleep } from "./modules/sleep";
import { training } from "./modules/training";
import type { DomainModule, MetricSpec } from "./types";

export const DOMAINS: DomainModule[] = [training, recovery, sleep, nutrition, mood];

const byId = new Map(DOMAINS.map((d) => [d.id, d]));

export function domainById(id: string): DomainModule | undefined {
  return byId.get(id);
}

export const DOMAIN_IDS = DOMAINS.map((d) => d.id);

/** Every metric of every domain, by canonical name. */
export const METRICS: Map<string, MetricSpec & { domain: string }> = new Map(DOMAINS.flatMap((d) => d.metrics.map((m) => [m.name, { ...m, domain: d.id }] as const)));
