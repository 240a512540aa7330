// The built-in workflows' React parts as the app's pages reach them: run-page views, workflow-page
// panels and app-level pages, found by name. These are looked up from
// workflows/registry.ts here, in the app's own server bundle, so that a lazy "use client" module
// arrives as a client reference; the core's catalog (definitions, effects, JSON endpoints) is
// provided once by instrumentation.ts. Nothing below the app imports this file, and neither does
// the root layout: every workflow's client views it reaches are sent to each page whose server
// code imports it (imported by the layout, they were on every page: its nav links come from the
// provided catalog, lib/machines/registry.ts's builtInNav).
import type { Metadata } from "next";
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

/** the built-in workflows' panels on the Settings page, in catalog order (server components taking { rt }) */
export async function settingsPanels(): Promise<unknown[]> {
  const modules = await Promise.all(entries.filter((w) => w.settings).map((w) => w.settings!()));
  return modules.map((m) => m.default).filter((p) => p != null);
}

async function pageModule(name: string): Promise<{ default: unknown; metadata?: Metadata } | null> {
  const w = entries.find((e) => e.pages && Object.hasOwn(e.pages, name));
  return w ? ((await w.pages![name]!()) as { default: unknown; metadata?: Metadata }) : null;
}

/** the app-level page <name> a built-in workflow contributes (a server component taking the page's props; null: none) */
export async function pageOf(name: string): Promise<unknown> {
  return (await pageModule(name))?.default ?? null;
}

/** the metadata (title, …) the page <name>'s module exports (null: none, or no such page) */
export async function pageMetadataOf(name: string): Promise<Metadata | null> {
  return (await pageModule(name))?.metadata ?? null;
}
