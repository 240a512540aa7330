// Where the live runs are (table ActiveState): one row per live run and state active in it, each
// active leaf and every group around it, kept by the stores in the transaction of each commit.
// The runs list's `?state=` filter reads it through its (state, createdAt) index (liveParts in
// rows.ts), so it costs the matching runs, not every live run's state JSON.
//
// Each row also carries what the fleet (lib/fleet/fleet.ts) counts by: the run's workflow, version
// and status, and when the run entered the state; the fleet reads them through the
// (workflow, version, state, since, status) index alone, never the runs' rows.
//
// A run counts while its status is running or waiting and it is not imported (an imported run
// never moves here: lib/engine/imported.ts). Replays count (the list hides them by its own rule).
import { isImportedRun } from "../imported";
import { pinOf } from "../views";
import type { RunRow } from "./types";

/** The run's active states (leaves and their groups), or none once it is not live. */
export function activeStates(run: Pick<RunRow, "id" | "status" | "state">): string[] {
  if ((run.status !== "running" && run.status !== "waiting") || isImportedRun(run.id)) return [];
  const leaves = run.state;
  // the usual run: one top-level state
  if (leaves.length === 1 && !leaves[0]!.includes(".")) return [leaves[0]!];
  const out = new Set<string>();
  for (const leaf of leaves) {
    let i = leaf.indexOf(".");
    while (i > 0) {
      out.add(leaf.slice(0, i));
      i = leaf.indexOf(".", i + 1);
    }
    out.add(leaf);
  }
  return [...out];
}

/** One ActiveState row's own values: the state, and when the run entered it (null: not known). */
export interface ActiveRow {
  state: string;
  since: number | null;
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/**
 * The run's active states with when it entered each (Run.entered, by state id): a leaf's own
 * time; a group's own time where the run records it (lib/engine/draft.ts), else its active
 * leaves' earliest. None once the run is not live.
 */
export function activeRows(run: Pick<RunRow, "id" | "status" | "state" | "entered">): ActiveRow[] {
  const states = activeStates(run);
  const entered = run.entered ?? {};
  // the usual run: one top-level state
  if (states.length === 1 && run.state.length === 1) return [{ state: states[0]!, since: num(entered[states[0]!]) }];
  return states.map((state) => {
    let since = num(entered[state]);
    if (since === null) {
      for (const leaf of run.state) {
        if (leaf !== state && !leaf.startsWith(`${state}.`)) continue;
        const t = num(entered[leaf]);
        if (t !== null && (since === null || t < since)) since = t;
      }
    }
    return { state, since };
  });
}

/**
 * The run's key in the fleet: its workflow version pin as the fleet's counters key it (0 for a
 * built-in: lib/fleet/counters.ts's versionOfInput), null for a replay or an evaluation run, which
 * the fleet does not count. `input`: the run's input after the commit.
 */
export function activeVersion(run: Pick<RunRow, "replayOf">, input: unknown): number | null {
  return run.replayOf ? null : (pinOf(input) ?? 0);
}

/** What the rows hold for a run: its status and version (the same on each of its rows), and its states. */
export interface ActiveSet {
  status: string;
  version: number | null;
  rows: ActiveRow[];
}

/**
 * What a commit changes: the states to drop and the rows to put (insert, or update in place).
 * `before`: what the rows hold now, or null when that is not known — then every row of the run is
 * dropped (`drop: null`) and all of its rows put.
 */
export function activeChange(before: ActiveSet | null, now: ActiveSet): { drop: string[] | null; put: ActiveRow[] } {
  if (before === null) return { drop: null, put: now.rows };
  // a status or version change rewrites every row of the run
  const all = before.status !== now.status || before.version !== now.version;
  const b = before.rows;
  const n = now.rows;
  if (b.length === 1 && n.length === 1) {
    if (b[0]!.state !== n[0]!.state) return { drop: [b[0]!.state], put: n };
    return { drop: [], put: all || b[0]!.since !== n[0]!.since ? n : [] };
  }
  const was = new Map(b.map((r) => [r.state, r.since]));
  const is = new Set(n.map((r) => r.state));
  return {
    drop: b.filter((r) => !is.has(r.state)).map((r) => r.state),
    put: n.filter((r) => all || !was.has(r.state) || was.get(r.state) !== r.since),
  };
}

/** The statements (`p(i)`: the dialect's i-th placeholder). A row put again takes the run's status, version and entry time. */
export const PUT_ACTIVE = (p: (i: number) => string) =>
  `INSERT INTO "ActiveState" ("state","runId","createdAt","workflow","version","status","since") VALUES (${[1, 2, 3, 4, 5, 6, 7].map(p).join(",")}) ON CONFLICT ("runId","state") DO UPDATE SET "workflow"=excluded."workflow","version"=excluded."version","status"=excluded."status","since"=excluded."since"`;
export const DROP_ACTIVE = (p: (i: number) => string) => `DELETE FROM "ActiveState" WHERE "runId"=${p(1)} AND "state"=${p(2)}`;
export const DROP_RUN_ACTIVE = (p: (i: number) => string) => `DELETE FROM "ActiveState" WHERE "runId"=${p(1)}`;

/** The filter: runs where `state` (a placeholder's SQL) or a state inside it is active. */
export const inActiveState = (state: string) => `"id" IN (SELECT a."runId" FROM "ActiveState" a WHERE a."state" = ${state})`;
