// GET /api/workflows/{id}/fleet: where a workflow's runs are now and what they did in a window,
// per state, from the fleet's counters (lib/fleet/counters.ts) and where the live runs are
// (ActiveState: lib/engine/store/active.ts) — never from transitions or the runs' rows. Replays
// and evaluation runs are counted nowhere, imported runs never as live.
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

/** Each state's dwell visits per bucket, from the counter sums. */
function dwellOf(counts: FleetRows["counts"]): Map<string, Map<number, number>> {
  const dwell = new Map<string, Map<number, number>>();
  const add = (state: string, bucket: number, n: number) => {
    const m = dwell.get(state) ?? new Map<number, number>();
    m.set(bucket, (m.get(bucket) ?? 0) + n);
    dwell.set(state, m);
  };
  for (const r of counts) {
    if (r.n === 0) continue;
    if (r.kind === "dwell") add(r.key, Number(r.bucket), r.n);
    else if (r.kind === "step" && Number(r.bucket) !== NO_DWELL) {
      // the step's row: `from`'s visit ended (lib/fleet/counters.ts)
      const cut = r.key.indexOf("->");
      if (cut > 0) add(r.key.slice(0, cut), Number(r.bucket), r.n);
    }
  }
  return dwell;
}

/**
 * Per state that has a limit, the time before which a run that entered it and is there now is
 * stuck: in it for longer than STUCK_FACTOR × its p95 dwell (of STUCK_MIN_VISITS or more visits)
 * in the window, or than its own timeout.
 */
export function stuckBefore(now: number, graph: WorkflowGraph, counts: FleetRows["counts"]): Map<string, number> {
  const limit = timeouts(graph);
  for (const [id, m] of dwellOf(counts)) {
    let visits = 0;
    for (const n of m.values()) visits += n;
    if (visits < STUCK_MIN_VISITS) continue;
    const over = STUCK_FACTOR * quantile(m, 0.95)!;
    limit.set(id, Math.min(limit.get(id) ?? Infinity, over));
  }
  // in the state for longer than the limit: entered before now − limit
  return new Map([...limit].map(([id, ms]) => [id, now - ms]));
}

export async function fleetOf(rt: Pick<Runtime, "store" | "clock">, workflow: string, q: { window?: FleetWindow; version?: number }): Promise<Fleet> {
  const version = versionFor(workflow, q.version);
  const window = q.window ?? "24h";
  const def = findWorkflow(workflow, version === null ? undefined : { definitionVersion: version });
  if (!def) throw new NotFoundError(`unknown workflow "${workflow}"`);
  const graph = deriveGraph(def.machine);
  const now = rt.clock.now();
  const start = windowStartHour(now, window);
  const rows = await rt.store.aggregates.fleet({ workflow, version, hour: start, allTime: start === ALL_TIME }, (counts) => stuckBefore(now, graph, counts));
  return assemble({ workflow, version, window, now, graph, rootParallel: def.machine.root.type === "parallel", ...rows });
}

/**
 * The fleet from its counter sums and where the live runs are (pure). `rootParallel`: the
 * machine's top-level states are the regions of a parallel root, each active in every live run
 * (else exactly one of them is).
 */
export function assemble(a: { workflow: string; version: number | null; window: FleetWindow; now: number; graph: WorkflowGraph; rootParallel?: boolean } & FleetRows): Fleet {
  const states: Record<string, FleetState> = {};
  const at = (id: string) => (states[id] ??= { now: { running: 0, waiting: 0 }, entered: 0, dwellMs: null, failedHere: 0, stuck: 0 });
  for (const s of a.graph.states) at(s.id);
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
      case "edge":
        taken.set(key, (taken.get(key) ?? 0) + n);
        break;
      case "step": {
        // the edge from->to taken, `to` entered, `from`'s visit ended (its dwell: dwellOf)
        const cut = key.indexOf("->");
        if (cut <= 0) break;
        taken.set(key, (taken.get(key) ?? 0) + n);
        at(key.slice(cut + 2)).entered += n;
        break;
      }
      case "end":
        if (key === "completed" || key === "failed" || key === "aborted") runs[key] += n;
        break;
    }
  }
  for (const [id, m] of dwellOf(a.counts)) at(id).dwellMs = { p50: quantile(m, 0.5)!, p95: quantile(m, 0.95)! };
  // the live runs: each counted once, in its top-level state (of a parallel root: in any one region, all being active)
  let top = { running: 0, waiting: 0 };
  for (const r of a.live) {
    const s = at(r.state);
    s.now.waiting += r.waiting;
    s.now.running += r.n - r.waiting;
    if (r.state.includes(".")) continue;
    if (!a.rootParallel) (top.running += r.n - r.waiting), (top.waiting += r.waiting);
    else if (r.n > top.running + top.waiting) top = { running: r.n - r.waiting, waiting: r.waiting };
  }
  runs.running = top.running;
  runs.waiting = top.waiting;
  for (const r of a.stuck) at(r.state).stuck += r.n;
  const edges: Fleet["edges"] = [];
  for (const [key, count] of taken) {
    const cut = key.indexOf("->");
    if (cut > 0 && count !== 0) edges.push({ from: key.slice(0, cut), to: key.slice(cut + 2), count });
  }
  edges.sort((x, y) => y.count - x.count || (x.from + x.to < y.from + y.to ? -1 : 1));
  return { workflow: a.workflow, version: a.version, window: a.window, generatedAt: new Date(a.now).toISOString(), runs, states, edges };
}
