// Where the live runs are (table ActiveState): one row per live run and state active in it, each
// active leaf and every group around it, kept by the stores in the transaction of each commit.
// The runs list's `?state=` filter reads it through its (state, createdAt) index (liveParts in
// rows.ts), so it costs the matching runs, not every live run's state JSON.
//
// A run counts while its status is running or waiting and it is not imported (an imported run
// never moves here: lib/engine/imported.ts). Replays count (the list hides them by its own rule).
import { isImportedRun } from "../imported";
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

/**
 * What a commit changes: the states to drop and to add. `before`: the states the rows hold now
 * (activeStates of the run as last written), or null when that is not known — then every row of
 * the run is dropped (`drop: null`) and all of its states added.
 */
export function activeChange(before: string[] | null, run: Pick<RunRow, "id" | "status" | "state">): { drop: string[] | null; add: string[] } {
  const now = activeStates(run);
  if (before === null) return { drop: null, add: now };
  if (before.length === 1 && now.length === 1) return before[0] === now[0] ? { drop: [], add: [] } : { drop: before, add: now };
  return { drop: before.filter((s) => !now.includes(s)), add: now.filter((s) => !before.includes(s)) };
}

/** The statements (`p(i)`: the dialect's i-th placeholder). */
export const ADD_ACTIVE = (p: (i: number) => string) => `INSERT INTO "ActiveState" ("state","runId","createdAt") VALUES (${p(1)},${p(2)},${p(3)}) ON CONFLICT DO NOTHING`;
export const DROP_ACTIVE = (p: (i: number) => string) => `DELETE FROM "ActiveState" WHERE "runId"=${p(1)} AND "state"=${p(2)}`;
export const DROP_RUN_ACTIVE = (p: (i: number) => string) => `DELETE FROM "ActiveState" WHERE "runId"=${p(1)}`;

/** The filter: runs where `state` (a placeholder's SQL) or a state inside it is active. */
export const inActiveState = (state: string) => `"id" IN (SELECT a."runId" FROM "ActiveState" a WHERE a."state" = ${state})`;
