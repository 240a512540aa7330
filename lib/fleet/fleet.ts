// GET /api/workflows/{id}/fleet: where a workflow's runs are now and what they did in a window,
// per state, from the fleet's counters (lib/fleet/counters.ts) and the live runs — never from
// transitions. Replays and evaluation runs are counted nowhere, imported runs never as live.
import { z } from "zod";
import { InvalidError, NotFoundError } from "../engine/errors";
import type { FleetRows } from "../engine/store/types";
import { deriveGraph, type WorkflowGraph } from "../graph/derive";
import { findWorkflow, isBuiltIn, userVersions } from "../machines/registry";
import type { Runtime } from "../runtime-types";
import { quantile } from "./buckets";
import { ALL_TIME, HOUR_MS, hourOf, NO_DWELL } from "./counters";

export const FLEET_WINDOWS = { "1h": HOUR_MS, "24h": 24 * HOUR_MS, "7d": 7 * 24 * HOUR_MS, all: null } as const;
export type FleetWindow = keyof typeof FLEET_WINDOWS;

export const FleetQuery = z
  .object({
    window: z.enum(["1h", "24h", "7d", "all"], { error: "window must be 1h, 24h, 7d or all" }).optional(),
    version: z
      .string()
      .regex(/^[1-9][0-9]{0,8}$/, "version must be a whole number from 1")
      .transform(Number)
      .optional(),
  })
  .strict();

/** a state's p95 dwell counts once it rests on this many visits */
export const STUCK_MIN_VISITS = 10;
/** "stuck": in the state now for longer than this many times its p95 dwell */
export const STUCK_FACTOR = 3;

export interface FleetState {
  now: { running: number; waiting: number };
  entered: number;
  dwellMs: { p50: number; p95: number } | null;
  failedHere: number;
  stuck: number;
}

export interface Fleet {
  workflow: string;
  version: number | null;
  window: FleetWindow;
  generatedAt: string;
  runs: { running: number; waiting: number; completed: number; failed: number; aborted: number };
  states: Record<string, FleetState>;
  edges: { from: string; to: string; count: number }[];
}

/** The first hour a window counts (whole hours: the window starts at the top of the hour it began in); ALL_TIME for all. */
export function windowStartHour(now: number, window: FleetWindow): number {
  const ms = FLEET_WINDOWS[window];
  return ms === null ? ALL_TIME : hourOf(now - ms);
}

/** The version a request names (null for a built-in), or a 4xx. */
function versionFor(workflow: string, version: number | undefined): number | null {
  if (isBuiltIn(workflow)) {
    if (!findWorkflow(workflow)) throw new NotFoundError(`unknown workflow "${workflow}"`);
    if (version !== undefined) throw new InvalidError(`${workflow} is a built-in workflow: it has no versions`);
    return null;
  }
  const versions = userVersions(workflow);
  if (versions.length === 0) throw new NotFoundError(`unknown workflow "${workflow}"`);
  if (version === undefined) return versions.at(-1)!;
  if (!versions.includes(version)) throw new NotFoundError(`workflow ${workflow} has no version ${version} (versions: ${versions.join(", ")})`);
  return version;
}

/** Each state's own timeout (ms): the shortest timer out of a state that has one, by the graph. */
function timeouts(graph: WorkflowGraph): Map<string, number> {
  const out = new Map<string, number>();
  const timed = new Set(graph.states.filter((s) => s.timeout !== null).map((s) => s.id));
  for (const t of graph.transitions) {
    if (t.kind !== "after" || t.delayMs === null || !timed.has(t.source)) continue;
    out.set(t.source, Math.min(out.get(t.source) ?? Infinity, t.delayMs));
  }
  return out;
}

const prefixes = (id: string) => id.split(".").map((_, i, parts) => parts.slice(0, i + 1).join("."));

/** `entered[leaf]` from the run's entered JSON (an object of numbers) without parsing all of it; NaN when absent. */
function enteredAt(json: string, leaf: string): number {
  const key = `${JSON.stringify(leaf)}:`;
  const i = json.indexOf(key);
  return i < 0 ? NaN : Number.parseFloat(json.slice(i + key.length, i + key.length + 24));
}

function parseJson<T>(text: unknown, fallback: T): T {
  try {
    return typeof text === "string" ? (JSON.parse(text) as T) : fallback;
  } catch {
    return fallback;
  }
}

export async function fleetOf(rt: Pick<Runtime, "store" | "clock">, workflow: string, q: { window?: FleetWindow; version?: number }): Promise<Fleet> {
  const version = versionFor(workflow, q.version);
  const window = q.window ?? "24h";
  const def = findWorkflow(workflow, version === null ? undefined : { definitionVersion: version });
  if (!def) throw new NotFoundError(`unknown workflow "${workflow}"`);
  const graph = deriveGraph(def.machine);
  const now = rt.clock.now();
  const start = windowStartHour(now, window);
  const { counts, live } = await rt.store.aggregates.fleet({ workflow, version, hour: start, allTime: start === ALL_TIME });
  return assemble({ workflow, version, window, now, graph, counts, live });
}

/** The fleet from its counter sums and live runs (pure). */
export function assemble(a: { workflow: string; version: number | null; window: FleetWindow; now: number; graph: WorkflowGraph } & FleetRows): Fleet {
  const states: Record<string, FleetState> = {};
  const at = (id: string) => (states[id] ??= { now: { running: 0, waiting: 0 }, entered: 0, dwellMs: null, failedHere: 0, stuck: 0 });
  for (const s of a.graph.states) at(s.id);
  const dwell = new Map<string, Map<number, number>>();
  const addDwell = (state: string, bucket: number, n: number) => {
    const m = dwell.get(state) ?? new Map<number, number>();
    m.set(bucket, (m.get(bucket) ?? 0) + n);
    dwell.set(state, m);
  };
  const runs = { running: 0, waiting: 0, completed: 0, failed: 0, aborted: 0 };
  // edges by key: a step's rows (one per bucket) and edge rows add up
  const taken = new Map<string, number>();
  for (const r of a.counts) {
    const { key, n } = r;
    if (n === 0) continue;
    switch (r.kind) {
      case "enter":
        at(key).entered += n;
        break;
      case "fail":
        at(key).failedHere += n;
        break;
      case "dwell":
        addDwell(key, Number(r.bucket), n);
        break;
      case "edge":
        taken.set(key, (taken.get(key) ?? 0) + n);
        break;
      case "step": {
        // the edge from->to taken, `to` entered, `from`'s visit ended (lib/fleet/counters.ts)
        const cut = key.indexOf("->");
        if (cut <= 0) break;
        taken.set(key, (taken.get(key) ?? 0) + n);
        at(key.slice(cut + 2)).entered += n;
        if (Number(r.bucket) !== NO_DWELL) addDwell(key.slice(0, cut), Number(r.bucket), n);
        break;
      }
      case "end":
        if (key === "completed" || key === "failed" || key === "aborted") runs[key] += n;
        break;
    }
  }
  const visits = new Map<string, number>();
  for (const [id, m] of dwell) {
    at(id).dwellMs = { p50: quantile(m, 0.5)!, p95: quantile(m, 0.95)! };
    visits.set(id, [...m.values()].reduce((x, y) => x + y, 0));
  }
  const limits = timeouts(a.graph);
  const p95s = new Map<string, number>();
  for (const [id, n] of visits) if (n >= STUCK_MIN_VISITS && states[id]!.dwellMs) p95s.set(id, states[id]!.dwellMs!.p95);
  const isStuck = (id: string, since: number) => {
    const inState = a.now - since;
    const p95 = p95s.get(id);
    const limit = limits.get(id);
    return (p95 !== undefined && inState > STUCK_FACTOR * p95) || (limit !== undefined && inState > limit);
  };
  // many runs share a state: each distinct state text read once
  const leavesOf = new Map<string, string[]>();
  for (const r of a.live) {
    const status = r.status;
    runs[status]++;
    const text = r.state;
    let leaves = leavesOf.get(text);
    if (!leaves) leavesOf.set(text, (leaves = parseJson<string[]>(text, [])));
    const enteredText = r.entered;
    if (leaves.length === 1 && !leaves[0]!.includes(".")) {
      // the usual run: one top-level state; its entry time read without parsing the whole map
      const leaf = leaves[0]!;
      const s = at(leaf);
      s.now[status]++;
      const since = enteredAt(enteredText, leaf);
      if (!Number.isNaN(since) && isStuck(leaf, since)) s.stuck++;
      continue;
    }
    const entered = parseJson<Record<string, number>>(enteredText, {});
    const since = new Map<string, number>();
    for (const leaf of leaves) {
      for (const p of prefixes(leaf)) {
        // a group's own entry time when the run records it (lib/engine/draft.ts), else its leaves' earliest
        const t = typeof entered[p] === "number" ? entered[p] : entered[leaf];
        if (typeof t === "number") since.set(p, Math.min(since.get(p) ?? Infinity, t));
        else if (!since.has(p)) since.set(p, NaN);
      }
    }
    for (const [id, t] of since) {
      const s = at(id);
      s.now[status]++;
      if (!Number.isNaN(t) && isStuck(id, t)) s.stuck++;
    }
  }
  const edges: Fleet["edges"] = [];
  for (const [key, count] of taken) {
    const cut = key.indexOf("->");
    if (cut > 0 && count !== 0) edges.push({ from: key.slice(0, cut), to: key.slice(cut + 2), count });
  }
  edges.sort((x, y) => y.count - x.count || (x.from + x.to < y.from + y.to ? -1 : 1));
  return { workflow: a.workflow, version: a.version, window: a.window, generatedAt: new Date(a.now).toISOString(), runs, states, edges };
}
