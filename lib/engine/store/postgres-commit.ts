// One group commit on PostgreSQL: the batch's rows written by a few statements that each take
// a column of values (unnest), not one statement per row. node-postgres sends a statement only
// once the previous one has answered, so a 400-step batch of ~2,400 single-row statements spent
// nearly all its time on round trips (npm run bench:postgres: ~500 ms per commit).
//
// Semantics are the per-item ones of the SQLite store: an item whose run is not at the version
// it expects (or already exists, for a new run), or whose reviews are no longer pending, is a
// conflict and writes nothing; the other items of the batch commit.
import type pg from "pg";
import { deliveryValues, ESCALATE_REVIEW, groupsJson, insertDeliveriesSql, insertOutboxSql, insertOutcomesSql, MARK_REPLAYED, ADD_FLEET, outboxValues, outcomeValues, ROUTE_REVIEW, routed, SET_INPUT } from "./rows";
import { idempotencyValues, insertIdempotencySql } from "./idempotency";
import { insertTransitionsSql, json, openReviewsSql, putArtifactSql, putSnapshotSql, RUN_WRITE_COLS, RUN_NAMES, RUN_UPDATED, type RunColumn, runWriters, setTimersSql, snapshotFirst } from "./rows";
import type { CommitItem, CommitOutcome, RunRow } from "./types";
import { withAllTime } from "../../fleet/counters";
import { activeRows, activeVersion } from "./active";

/** TIMESTAMP(3) columns take ISO text (UTC, as Prisma writes them). */
export const ts = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const write = runWriters(ts);

type PgType = "text" | "int" | "timestamp(3)";

const RUN_TYPES: Record<Exclude<RunColumn, "snapshot" | "context">, PgType> = {
  id: "text",
  workflow: "text",
  status: "text",
  state: "text",
  input: "text",
  output: "text",
  error: "text",
  entered: "text",
  version: "int",
  seq: "int",
  parentId: "text",
  forkOf: "text",
  forkSeq: "int",
  scheduleId: "text",
  retries: "int",
  waitingSince: "timestamp(3)",
  failedStates: "text",
  name: "text",
  createdAt: "timestamp(3)",
  updatedAt: "timestamp(3)",
  finishedAt: "timestamp(3)",
  inFlight: "int",
  replayOf: "text",
  replay: "text",
};
const runType = (c: string) => RUN_TYPES[c as keyof typeof RUN_TYPES];

/** `unnest($1::type[], …)`: one row per index of the arrays passed for the placeholders */
const unnest = (types: PgType[]) => `unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(",")})`;
const quoted = (names: readonly string[]) => names.map((c) => `"${c}"`).join(",");

const INSERT_RUNS = `INSERT INTO "Run" (${RUN_WRITE_COLS}) SELECT * FROM ${unnest(RUN_NAMES.map(runType))} ON CONFLICT ("id") DO NOTHING RETURNING "id"`;
const UPDATE_RUNS = `UPDATE "Run" AS r SET ${RUN_UPDATED.map((c) => `"${c}"=v."${c}"`).join(",")} FROM ${unnest([...RUN_UPDATED.map(runType), "text", "int"])} AS v(${quoted([...RUN_UPDATED, "id", "expect"])}) WHERE r."id"=v."id" AND r."version"=v."expect" RETURNING r."id"`;
const CLOSE_REVIEWS = `UPDATE "Review" AS w SET "status"=v."status","decision"=v."decision","feedback"=v."feedback","reviewer"=v."reviewer","decidedAt"=v."decidedAt","decidedBy"=v."decidedBy" FROM ${unnest(["text", "text", "text", "text", "timestamp(3)", "text", "text"])} AS v("status","decision","feedback","reviewer","decidedAt","decidedBy","id") WHERE w."id"=v."id" AND w."status"='pending' RETURNING w."id"`;
const INSERT_TRANSITIONS = insertTransitionsSql(`SELECT * FROM ${unnest(["text", "int", "text", "text", "text", "text", "timestamp(3)", "int", "text"])}`);
const PUT_SNAPSHOTS = putSnapshotSql(`SELECT * FROM ${unnest(["text", "int", "int", "text", "text", "text", "timestamp(3)"])}`, "least");
const CLEAR_TIMERS = `DELETE FROM "Timer" AS t USING ${unnest(["text", "text"])} AS v("runId","id") WHERE t."runId"=v."runId" AND t."id"=v."id"`;
const SET_TIMERS = setTimersSql(`SELECT * FROM ${unnest(["text", "text", "timestamp(3)", "text", "int"])}`);
const OPEN_REVIEWS = openReviewsSql(`SELECT * FROM ${unnest(["text", "text", "text", "text", "text", "text", "text", "text", "text", "text", "text", "timestamp(3)", "timestamp(3)", "int"])}`);
const INSERT_OUTBOX = insertOutboxSql(`SELECT * FROM ${unnest(["text", "text", "int", "text", "text", "text", "timestamp(3)", "timestamp(3)"])}`);
const INSERT_DELIVERIES = insertDeliveriesSql(`SELECT * FROM ${unnest(["text", "text", "text", "text", "text", "text", "int", "timestamp(3)", "timestamp(3)"])}`);
/** keys claimed: the rows returned are the keys this statement inserted (scope and key joined by a newline) */
const CLAIM_KEYS = insertIdempotencySql(`SELECT * FROM ${unnest(["text", "text", "text", "text", "int", "int", "int", "timestamp(3)"])}`, ` ON CONFLICT ("scope","key") DO NOTHING RETURNING "scope" || chr(10) || "key" AS "id"`);
const INSERT_OUTCOMES = insertOutcomesSql(`SELECT * FROM ${unnest(["text", "text", "text", "int", "text", "text", "text", "text", "text", "timestamp(3)"])}`);
const ADD_FLEETS = ADD_FLEET(`SELECT * FROM ${unnest(["text", "int", "int", "text", "text", "int", "int"])}`);
/** where live runs are (active.ts): each run's rows not among its active states (newline-separated) dropped, then the active ones added */
const KEEP_ACTIVE = `DELETE FROM "ActiveState" AS a USING ${unnest(["text", "text"])} AS v("runId","keep") WHERE a."runId"=v."runId" AND NOT (a."state" = ANY(string_to_array(v."keep", chr(10))))`;
/** (a row already there is rewritten only when the run's status, version or entry time there changed) */
const ADD_ACTIVES = `INSERT INTO "ActiveState" AS a ("state","runId","createdAt","workflow","version","status","since") SELECT * FROM ${unnest(["text", "text", "timestamp(3)", "text", "int", "text", "timestamp(3)"])} ON CONFLICT ("runId","state") DO UPDATE SET "workflow"=excluded."workflow","version"=excluded."version","status"=excluded."status","since"=excluded."since" WHERE (a."workflow",a."version",a."status",a."since") IS DISTINCT FROM (excluded."workflow",excluded."version",excluded."status",excluded."since")`;
const PUT_ARTIFACT = putArtifactSql("$1,$2,$3,$4,$5", "put");
const APPEND_ARTIFACT = putArtifactSql("$1,$2,$3,$4,$5", "append");

/** Rows of `width` values → one array per column (the statements' unnest parameters). */
function columns(rows: unknown[][], width: number): unknown[][] {
  const out: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) for (let j = 0; j < width; j++) out[j].push(row[j]);
  return out;
}

/** Runs `sql` with the rows as columns, unless there are none; the rows it returned. */
async function bulk(c: pg.PoolClient, sql: string, rows: unknown[][], width: number): Promise<{ id: string }[]> {
  if (rows.length === 0) return [];
  return (await c.query(sql, columns(rows, width))).rows as { id: string }[];
}

/**
 * Writes the batch in this transaction; each item's outcome. A run with several items in the
 * batch has them written in rounds (its second item in the second round, and so on): each
 * round touches a run once, which its statements need.
 */
export async function commitItems(c: pg.PoolClient, items: CommitItem[]): Promise<CommitOutcome[]> {
  const out: CommitOutcome[] = items.map(() => "ok");
  const rounds: number[][] = [];
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const k = seen.get(item.run.id) ?? 0;
    seen.set(item.run.id, k + 1);
    (rounds[k] ??= []).push(i);
  });
  for (const round of rounds) {
    const won = await compareAndSet(c, items, round, out);
    if (won.length) await writeRows(c, items, won);
  }
  return out;
}

/**
 * The compare-and-set of a round: run rows (inserted, or updated at the version expected), then
 * the reviews the items close. The items that lose either are marked conflicts; when a review
 * was lost after its run row was written, the round's writes so far are rolled back (to a
 * savepoint) and done again without that item. Returns the items that won.
 */
async function compareAndSet(c: pg.PoolClient, items: CommitItem[], round: number[], out: CommitOutcome[]): Promise<number[]> {
  const closes = round.some((i) => items[i].reviewsClose.length > 0 || items[i].idempotency !== undefined);
  let live = round;
  for (;;) {
    if (closes) await c.query("SAVEPOINT cas");
    const won = await writeRuns(c, items, live);
    for (const i of live) if (!won.has(i)) out[i] = "conflict";
    live = live.filter((i) => won.has(i));
    const lost = closes ? await closeReviews(c, items, live) : new Set<number>();
    if (closes) for (const i of await claimKeys(c, items, live.filter((i) => !lost.has(i)))) lost.add(i);
    if (lost.size === 0) {
      if (closes) await c.query("RELEASE SAVEPOINT cas");
      return live;
    }
    await c.query("ROLLBACK TO SAVEPOINT cas");
    await c.query("RELEASE SAVEPOINT cas");
    for (const i of lost) out[i] = "conflict";
    live = live.filter((i) => !lost.has(i));
  }
}

/** Inserts the new runs and updates the others where their version is the one expected; the items whose row was written. */
async function writeRuns(c: pg.PoolClient, items: CommitItem[], idx: number[]): Promise<Set<number>> {
  const byId = new Map(idx.map((i) => [items[i].run.id, i]));
  const fresh = idx.filter((i) => items[i].expectVersion === null);
  const moved = idx.filter((i) => items[i].expectVersion !== null);
  const written = [
    ...(await bulk(c, INSERT_RUNS, fresh.map((i) => write.insert(items[i].run)), RUN_NAMES.length)),
    ...(await bulk(c, UPDATE_RUNS, moved.map((i) => write.update(items[i].run, items[i].expectVersion!)), RUN_UPDATED.length + 2)),
  ];
  return new Set(written.map((r) => byId.get(r.id)!));
}

/** Closes the items' reviews that are still pending; the items that found one of theirs no longer pending. */
async function closeReviews(c: pg.PoolClient, items: CommitItem[], idx: number[]): Promise<Set<number>> {
  const wanted = idx.flatMap((i) => items[i].reviewsClose.map((v) => ({ i, v })));
  const closed = new Set((await bulk(c, CLOSE_REVIEWS, wanted.map(({ v }) => [v.status, v.decision, v.feedback, v.reviewer, ts(v.decidedAt), v.decidedBy ?? null, v.id]), 7)).map((r) => r.id));
  return new Set(wanted.filter(({ v }) => !closed.has(v.id)).map(({ i }) => i));
}

/** Writes the items' Idempotency-Keys; the items whose key was already there (or taken by an earlier item of the batch). */
async function claimKeys(c: pg.PoolClient, items: CommitItem[], idx: number[]): Promise<Set<number>> {
  const keyed = idx.filter((i) => items[i].idempotency);
  const won = new Set((await bulk(c, CLAIM_KEYS, keyed.map((i) => idempotencyValues(items[i].idempotency!, ts)), 8)).map((r) => r.id));
  const lost = new Set<number>();
  for (const i of keyed) {
    const k = items[i].idempotency!;
    const id = `${k.scope}\n${k.key}`;
    if (won.has(id)) won.delete(id); // the first item with this key has it
    else lost.add(i);
  }
  return lost;
}

/** Everything else the won items write: transitions, snapshots, timers, opened reviews, artifacts. */
async function writeRows(c: pg.PoolClient, items: CommitItem[], idx: number[]): Promise<void> {
  const its = idx.map((i) => items[i]);
  await bulk(c, INSERT_TRANSITIONS, its.flatMap((it) => it.transitions.map((t) => [t.runId, t.seq, JSON.stringify(t.from), JSON.stringify(t.to), t.event, t.reason, ts(t.at), t.durationMs, json(t.payload)])), 9);
  // each run's state after the commit, at its seq (a commit without transitions rewrites the row)
  await bulk(c, PUT_SNAPSHOTS, its.map((it) => write.snapshot(it.run, snapshotFirst(it), it.timers)), 7);
  await bulk(c, CLEAR_TIMERS, its.flatMap((it) => it.timersClear.map((id) => [it.run.id, id])), 2);
  await bulk(c, SET_TIMERS, its.flatMap((it) => it.timersSet.map((t) => [t.runId, t.id, ts(t.dueAt), JSON.stringify(t.event), t.seq])), 5);
  await bulk(
    c,
    OPEN_REVIEWS,
    its.flatMap((it) => it.reviewsOpen.map((v) => [v.id, v.runId, v.workflow, v.state, v.kind, v.prompt, JSON.stringify(v.payload), v.status, v.decision, v.feedback, v.reviewer, ts(v.createdAt), ts(v.decidedAt), v.seq])),
    14,
  );
  // post-commit actions and webhook deliveries: statements only when a commit has some
  await bulk(c, INSERT_OUTBOX, its.flatMap((it) => (it.outbox ?? []).map((o) => outboxValues(o, ts))), 8);
  await bulk(c, INSERT_DELIVERIES, its.flatMap((it) => (it.deliveries ?? []).map((d) => deliveryValues(d, ts))), 9);
  // effect outcomes (lib/change); a replay's decisions and a migration's version pin are rare: one statement each
  await bulk(c, INSERT_OUTCOMES, its.flatMap((it) => (it.outcomes ?? []).map((o) => outcomeValues(o, ts))), 10);
  // where the runs are now: a new run has no rows to drop
  const active = its.map((it) => activeRows(it.run));
  await bulk(c, KEEP_ACTIVE, its.flatMap((it, k) => (it.expectVersion === null ? [] : [[it.run.id, active[k]!.map((r) => r.state).join("\n")]])), 2);
  await bulk(
    c,
    ADD_ACTIVES,
    its.flatMap((it, k) => {
      const version = activeVersion(it.run, it.setInput !== undefined ? it.setInput : it.run.input);
      return active[k]!.map((r) => [r.state, it.run.id, ts(it.run.createdAt), it.run.workflow, version, it.run.status, ts(r.since)]);
    }),
    7,
  );
  // the fleet's counters, summed per row over the batch (one statement; an upsert touches a row once)
  await bulk(c, ADD_FLEETS, sumFleet(its), 7);
  for (const it of its) {
    for (const r of it.reviewsOpen) if (r.replayedFrom) await c.query(MARK_REPLAYED((i) => `$${i}`), [r.replayedFrom, r.id]);
    // routed reviews (review.assign / review.due) and escalations
    for (const r of it.reviewsOpen) if (routed(r)) await c.query(ROUTE_REVIEW((i) => `$${i}`), [groupsJson(r.assignedTo), r.dueAt == null ? null : ts(r.dueAt), groupsJson(r.escalatedFrom), r.id]);
    for (const r of it.reviewsRoute ?? []) await c.query(ESCALATE_REVIEW((i) => `$${i}`), [groupsJson(r.assignedTo), groupsJson(r.escalatedFrom), r.id]);
    if (it.setInput !== undefined) await c.query(SET_INPUT((i) => `$${i}`), [JSON.stringify(it.setInput ?? null), it.run.id]);
  }
  // artifacts are rare (a few workflows, a few per run): one statement each, in order
  for (const it of its) {
    for (const a of it.artifacts) await c.query(a.mode === "append" ? APPEND_ARTIFACT : PUT_ARTIFACT, [it.run.id, a.name, a.content, Buffer.byteLength(a.content), ts(it.run.updatedAt)]);
  }
}

/** The items' fleet increments, one row per counter (its increments summed). */
function sumFleet(its: CommitItem[]): unknown[][] {
  const sums = new Map<string, unknown[]>();
  for (const it of its) {
    for (const d of withAllTime(it.fleet ?? [])) {
      const k = d.slice(0, 6).join("\u0001");
      const had = sums.get(k);
      if (had) (had[6] as number) += d[6];
      else sums.set(k, [...d]);
    }
  }
  // in key order: concurrent commits (cluster workers) lock shared counter rows in the same order
  return [...sums.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}
