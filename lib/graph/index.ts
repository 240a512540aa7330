// Cached diagram layouts, keyed by (workflow, version, collapsed groups, aspect bucket). A
// version's machine never changes, so its layouts never do. For each version the server lays out
// both aspect buckets with every group open and with every group collapsed, in the layout thread
// (lib/graph/elk-thread.ts) with its deadline, so a page gets its diagram with its HTML and the
// browser runs ELK only for other sets of collapsed groups. A run's page gets one more pair: every
// group collapsed but those the run is in (what the diagram draws when the machine is too large
// to read whole with its groups open).
import { findWorkflow, listWorkflows } from "../machines/registry";
import type { WorkflowDefinition } from "../machines/types";
import { deriveGraph } from "./derive";
import { layoutOffThread, type ThreadOptions } from "./elk-thread";
import { groupsOf, packLayouts, variantKey, type Aspect, type Layout, type LayoutPack } from "./layout";
import { collapsedAround } from "./view";

/** Cached layouts kept at most (oldest dropped first). */
const MAX_CACHED = 400;
const cache = new Map<string, Promise<Layout>>();

/** A layout variant: its collapsed groups, its aspect bucket, and whether it is the overview (chips, drawn below a readable zoom). */
export interface Variant {
  collapsed: string[];
  aspect: Aspect;
  overview?: boolean;
}

const keyOf = (def: WorkflowDefinition, v: Variant) => `${def.id}@${def.version ?? 0}#${variantKey(v.collapsed, v.aspect, v.overview)}`;
/** each variant as the detailed diagram and as the overview */
const withOverviews = (vs: Variant[]): Variant[] => vs.flatMap((v) => [v, { ...v, overview: true }]);

/** A fallback layout (ELK missed its deadline, say on a busy machine) is laid out again after this long. */
const FALLBACK_TTL_MS = 60_000;

function remember(key: string, p: Promise<Layout>): void {
  cache.set(key, p);
  p.then(
    (l) => {
      if (l.fallback) setTimeout(() => cache.get(key) === p && cache.delete(key), FALLBACK_TTL_MS).unref();
    },
    () => cache.delete(key),
  );
  while (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
}

/** The variants every version gets: both buckets, groups all open and all collapsed, each detailed and as the overview. */
function standardVariants(def: WorkflowDefinition): Variant[] {
  const groups = groupsOf(deriveGraph(def.machine)).map((g) => g.id);
  const sets = groups.length ? [[], groups] : [[]];
  return withOverviews((["landscape", "portrait"] as const).flatMap((aspect) => sets.map((collapsed) => ({ collapsed, aspect }))));
}

/** Layouts of `def`'s machine for these variants: cached ones at once, the others in one batch off the thread. */
export function layoutsOf(def: WorkflowDefinition, variants: Variant[], opts: ThreadOptions = {}): Promise<Layout[]> {
  const missing = variants.filter((v) => !cache.has(keyOf(def, v)));
  if (missing.length) {
    const batch = layoutOffThread(deriveGraph(def.machine), missing, opts);
    missing.forEach((v, i) => remember(keyOf(def, v), batch.then((ls) => ls[i])));
  }
  return Promise.all(variants.map((v) => cache.get(keyOf(def, v)) ?? layoutsOf(def, [v], opts).then((ls) => ls[0])));
}

/** The variants a run's page draws first when they differ from the standard ones: groups collapsed around the states it is in and went through. */
function runVariants(def: WorkflowDefinition, active: string[]): Variant[] {
  const graph = deriveGraph(def.machine);
  const collapsed = collapsedAround(graph, active);
  if (collapsed.length === 0 || collapsed.length === groupsOf(graph).length) return [];
  return withOverviews((["landscape", "portrait"] as const).map((aspect) => ({ collapsed, aspect })));
}

/** A definition's standard layouts, and with `active` (a run's states) the run's own, packed for a page (one graph, its variants). */
export async function layoutPackOf(def: WorkflowDefinition, opts: ThreadOptions = {}, active?: string[]): Promise<LayoutPack> {
  const variants = [...standardVariants(def), ...(active ? runVariants(def, active) : [])];
  return packLayouts(deriveGraph(def.machine), await layoutsOf(def, variants, opts));
}

/** The layouts of a workflow (`input`, a run's, picks a user-defined workflow's version; `active`, the states a run is in and went through, adds its own). */
export function workflowLayouts(id: string, input?: unknown, active?: string[]): Promise<LayoutPack> | null {
  const def = findWorkflow(id, input);
  return def ? layoutPackOf(def, {}, active) : null;
}

/** The landscape layout with every group open. */
export function workflowLayout(id: string, input?: unknown): Promise<Layout> | null {
  const def = findWorkflow(id, input);
  return def ? layoutsOf(def, [{ collapsed: [], aspect: "landscape" }]).then((ls) => ls[0]) : null;
}

/** Lays out every registered workflow's latest version in the background (the server's start, a save). */
export async function warmLayouts(ids?: string[]): Promise<void> {
  for (const def of listWorkflows()) {
    if (ids && !ids.includes(def.id)) continue;
    await layoutsOf(def, standardVariants(def)).catch(() => undefined);
  }
}

/** Forgets every cached layout (tests). */
export function clearLayoutCache(): void {
  cache.clear();
}
