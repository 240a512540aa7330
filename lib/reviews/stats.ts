// Decision analytics of a workflow's review states (GET /api/workflows/{id}/reviews/stats): per
// state, the decisions people made in a window by kind, their rates, the time from a review opening
// to its decision (p50, p95), how many each reviewer made, and for quorum reviews `agreement`: the
// share of finished rounds that reached the quorum with approvals only (no edit, no reject). The
// engine's own decisions (replays, evaluations: decidedBy "engine") are not counted.
import { z } from "zod";
import { dbDate, dialectOf, readAll, type Dialect, type SqlPorts } from "../db/sql";
import type { WorkflowDefinition } from "../machines/types";
import { reviewStatesOf } from "./routes";

export const STATS_WINDOWS = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000, all: null } as const;
export type StatsWindow = keyof typeof STATS_WINDOWS;
export const StatsQuery = z.object({ window: z.enum(Object.keys(STATS_WINDOWS) as [StatsWindow, ...StatsWindow[]], { error: "window is 1h, 24h, 7d or all" }).default("24h") }).strict();

export interface StateStats {
  /** decisions by kind (every decision the state offers, 0 when none) */
  decisions: Record<string, number>;
  /** each kind's share of the decisions (0..1; empty without decisions) */
  rates: Record<string, number>;
  total: number;
  /** ms from a review opening to its decision (null without decisions) */
  timeToDecisionMs: { p50: number | null; p95: number | null };
  /** decisions per reviewer ("(anonymous)" for decisions without a name) */
  reviewers: Record<string, number>;
  /** quorum reviews: finished rounds that reached the quorum with approvals only, as a share (null: not a quorum review, or no round finished) */
  agreement: number | null;
  /** quorum reviews: the finished rounds it rests on */
  rounds?: number;
}

export interface ReviewStats {
  workflow: string;
  window: StatsWindow;
  /** the window's start (ISO; null: all time) */
  since: string | null;
  states: Record<string, StateStats>;
}

export const ANONYMOUS = "(anonymous)";

/** one SQL text per database: the same query, where the two spell it differently */
type Sql = Record<Dialect, string>;

/** the window's decided reviews, people's only: `?` = workflow[, since, now] */
const decided = (windowed: boolean) =>
  `"workflow" = ? AND "status" = 'decided' AND "decidedBy" = 'person'${windowed ? ` AND "decidedAt" >= ? AND "decidedAt" <= ?` : ""}`;

/** ms from opening to decision, at least 0 (SQLite: ISO text, julianday; PostgreSQL: TIMESTAMPs) */
const WAIT: Sql = {
  sqlite: `MAX(0, CAST(ROUND((julianday(COALESCE("decidedAt", "createdAt")) - julianday("createdAt")) * 86400000.0) AS INTEGER))`,
  postgres: `GREATEST(0, CAST(ROUND(EXTRACT(EPOCH FROM (COALESCE("decidedAt", "createdAt") - "createdAt")) * 1000) AS BIGINT))`,
};

/** a number in the payload's `approvals` (else NULL: a review without a quorum, or not a number there) */
const APPROVALS: Record<Dialect, (key: "so_far" | "needed") => string> = {
  sqlite: (k) => `(CASE WHEN json_valid("payload") THEN (CASE WHEN json_type("payload", '$.approvals.${k}') IN ('integer', 'real') THEN json_extract("payload", '$.approvals.${k}') END) END)`,
  postgres: (k) => `(CASE WHEN jsonb_typeof("payload"::jsonb #> '{approvals,${k}}') = 'number' THEN ("payload"::jsonb #>> '{approvals,${k}}')::float8 END)`,
};

/** a cheap test that text holds a fragment, before its JSON is parsed */
const CONTAINS: Record<Dialect, (col: string, text: string) => string> = {
  sqlite: (col, text) => `instr(${`"${col}"`}, '${text}') > 0`,
  postgres: (col, text) => `strpos(${`"${col}"`}, '${text}') > 0`,
};

/** a decision other than an approval (1) or not (0) */
const OTHER = `(CASE WHEN "decision" = 'approve' THEN 0 ELSE 1 END)`;
/** the last review of its round: a round has started, and the next review starts another or there is none */
const LAST = `("round" > 0 AND ("next" IS NULL OR "next" = 0))`;
/** an approval (or an edit) that reached the quorum */
const REACHED = `("decision" IN ('approve', 'edit') AND "so_far" + 1 >= "needed")`;
/** an approval (or an edit) short of the quorum: its round is still collecting */
const SHORT = `("decision" IN ('approve', 'edit') AND "so_far" + 1 < "needed")`;

/**
 * Quorum rounds per state. In each run, a state's reviews in seq order form rounds, each starting
 * at a review with no approval so far (those before the window's first start are left out). A round
 * is finished unless its last review was an approval (or an edit: its editor's approval of the new
 * value) short of the quorum; it agreed when that last one reached the quorum and every decision in
 * it was an approval ("others", the running count of other decisions, is where it was before the
 * round's start). One sort of the rows that carry approvals; one row per state: its largest quorum,
 * finished, agreed.
 */
const rounds = (d: Dialect, where: string) => `
  WITH a AS MATERIALIZED (
    SELECT "runId", "state", "seq", "createdAt", "decision", ${APPROVALS[d]("so_far")} AS "so_far", ${APPROVALS[d]("needed")} AS "needed"
    FROM "Review" WHERE ${where} AND ${CONTAINS[d]("payload", '"approvals"')}
  ),
  q AS (
    SELECT "runId", "state", "seq", "createdAt", "decision", "so_far", "needed",
           SUM(CASE WHEN "so_far" = 0 THEN 1 ELSE 0 END) OVER (w ROWS UNBOUNDED PRECEDING) AS "round",
           LEAD("so_far") OVER w AS "next",
           SUM(${OTHER}) OVER (w ROWS UNBOUNDED PRECEDING) AS "others"
    FROM a WHERE "so_far" IS NOT NULL AND "needed" IS NOT NULL
    WINDOW w AS (PARTITION BY "runId", "state" ORDER BY "seq", "createdAt")
  ),
  r AS (
    SELECT "state", "decision", "so_far", "needed", "round", "next", "others",
           MAX(CASE WHEN "so_far" = 0 THEN "others" - ${OTHER} END) OVER (w ROWS UNBOUNDED PRECEDING) AS "before"
    FROM q
    WINDOW w AS (PARTITION BY "runId", "state" ORDER BY "seq", "createdAt")
  )
  SELECT "state", MAX("needed") AS "needed",
         SUM(CASE WHEN ${LAST} AND NOT ${SHORT} THEN 1 ELSE 0 END) AS "finished",
         SUM(CASE WHEN ${LAST} AND ${REACHED} AND "others" = "before" THEN 1 ELSE 0 END) AS "agreed"
  FROM r GROUP BY "state"`;

/**
 * Time to decision at the 50th and 95th percentile (nearest rank: the ⌈p·n⌉-th smallest, as
 * lib/metrics/state-metrics.ts's percentile) of each state: the database sorts, two rows per state
 * come back. ⌈n/2⌉ and ⌈95n/100⌉ in integer arithmetic.
 */
const percentiles = (d: Dialect, where: string) => `
  SELECT "state", "rn", "n", "w" FROM (
    SELECT "state", "w", ROW_NUMBER() OVER (PARTITION BY "state" ORDER BY "w") AS "rn", COUNT(*) OVER (PARTITION BY "state") AS "n"
    FROM (SELECT "state", ${WAIT[d]} AS "w" FROM "Review" WHERE ${where}) d
  ) x
  WHERE "rn" = ("n" + 1) / 2 OR "rn" = (95 * "n" + 99) / 100`;

const num = (v: unknown) => Number(v);

/**
 * The statistics of a workflow's review states over a window ending `now`: people's decisions only.
 * Aggregates in SQL, in one read snapshot: counts by state, decision and reviewer, two
 * percentile rows per state and one row of quorum rounds per state; no review row is loaded here.
 */
export async function reviewStats(ports: SqlPorts, def: WorkflowDefinition, window: StatsWindow, now: number): Promise<ReviewStats> {
  const d = dialectOf(ports);
  const span = STATS_WINDOWS[window];
  const since = span === null ? null : now - span;
  const where = decided(since !== null);
  const args = since === null ? [def.id] : [def.id, dbDate(d, since), dbDate(d, now)];
  const [counts, ranks, quorum] = await readAll(ports, [
    { sql: `SELECT "state", "decision", "reviewer", COUNT(*) AS "n" FROM "Review" WHERE ${where} GROUP BY "state", "decision", "reviewer"`, args },
    { sql: percentiles(d, where), args },
    { sql: rounds(d, where), args },
  ]);
  const states: Record<string, StateStats> = {};
  const stateOf = (id: string) =>
    (states[id] ??= {
      decisions: Object.fromEntries(metaDecisions(def, id).map((k) => [k, 0])),
      rates: {},
      total: 0,
      timeToDecisionMs: { p50: null, p95: null },
      reviewers: {},
      agreement: null,
    });
  for (const id of reviewStatesOf(def)) stateOf(id);
  for (const r of counts) {
    const s = stateOf(String(r.state));
    const n = num(r.n);
    const kind = r.decision === null ? "(none)" : String(r.decision);
    s.decisions[kind] = (s.decisions[kind] ?? 0) + n;
    s.total += n;
    // names told apart by surrounding spaces only are one person
    const who = (r.reviewer === null ? "" : String(r.reviewer)).trim() || ANONYMOUS;
    s.reviewers[who] = (s.reviewers[who] ?? 0) + n;
  }
  for (const r of ranks) {
    const s = stateOf(String(r.state));
    const n = num(r.n);
    const rn = num(r.rn);
    if (rn === Math.floor((n + 1) / 2)) s.timeToDecisionMs.p50 = num(r.w);
    if (rn === Math.floor((95 * n + 99) / 100)) s.timeToDecisionMs.p95 = num(r.w);
  }
  for (const s of Object.values(states)) if (s.total) s.rates = Object.fromEntries(Object.entries(s.decisions).map(([k, n]) => [k, n / s.total]));
  for (const r of quorum) {
    if (num(r.needed) <= 1) continue;
    const s = stateOf(String(r.state));
    s.rounds = num(r.finished);
    s.agreement = s.rounds ? num(r.agreed) / s.rounds : null;
  }
  return { workflow: def.id, window, since: since === null ? null : new Date(since).toISOString(), states };
}

function metaDecisions(def: WorkflowDefinition, path: string): string[] {
  let node = def.machine.root as unknown as { states?: Record<string, unknown>; meta?: { review?: { decisions?: string[] } } } | undefined;
  for (const seg of path.split(".")) node = node?.states?.[seg] as typeof node;
  return node?.meta?.review?.decisions ?? [];
}

/** Each review state's approve rate as a small tag on the diagram (lib/graph/overlay.ts); states without decisions get none. */
export function approveRateOverlay(stats: ReviewStats): { nodes: Record<string, { label: string; tone: "info"; title: string }[]> } {
  const nodes: Record<string, { label: string; tone: "info"; title: string }[]> = {};
  for (const [state, s] of Object.entries(stats.states)) {
    if (!s.total || s.decisions.approve === undefined) continue;
    const pct = Math.round((s.rates.approve ?? 0) * 100);
    nodes[state] = [{ label: `✓ ${pct}%`, tone: "info", title: `approved ${s.decisions.approve} of ${s.total} decisions (${stats.window === "all" ? "all time" : `last ${stats.window}`})` }];
  }
  return { nodes };
}

