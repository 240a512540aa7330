// The built-in workflows as the app's pages and routes reach them: run-page views, workflow-page
// panels, app-level pages and JSON endpoints, found by name. These are looked up from
// workflows/registry.ts here, in the app's own server bundle, so that a lazy "use client" module
// arrives as a client reference; the core's catalog (definitions, effects) is provided once by
// instrumentation.ts. Nothing below the app imports this file.
import type { ApiHandler } from "@/lib/machines/built-in";
import { catalogOrder } from "@/lib/machines/registry";
import * as workflows from "@/workflows/registry";

const entries = catalogOrder(workflows);
const byId = new Map(entries.map((w) => [w.definition.id, w]));

/** a built-in workflow's run-page views module (a client reference on the server; null: none) */
export async function viewsOf(id: string): Promise<unknown> {
  return (await byId.get(id)?.views?.())?.default ?? null;
}

/** a built-in workflow's extra workflow-page panel (a server component taking { rt }; null: none) */
export async function panelOf(id: string): Promise<unknown> {
  return (await byId.get(id)?.panel?.())?.default ?? null;
}

/** the built-in workflow that contributes the app-level JSON endpoint /api/<name> (null: none) */
export function apiOf(name: string): { workflow: string; handler: ApiHandler } | null {
  const w = entries.find((e) => e.api && Object.hasOwn(e.api, name));
  return w ? { workflow: w.definition.id, handler: w.api![name]! } : null;
}

/** the app-level page <name> a built-in workflow contributes (a server component taking the page's props; null: none) */
export async function pageOf(name: string): Promise<unknown> {
  const w = entries.find((e) => e.pages && Object.hasOwn(e.pages, name));
  return w ? ((await w.pages![name]!()).default ?? null) : null;
}
