// Database rows → the store's types, shared by both stores. They differ only in how a date
// column reads back (SQLite: Prisma's stored form; PostgreSQL: epoch ms from the pool's parser)
// and in integers arriving as BigInt from SQLite.
import { notImported } from "../imported";
import { inActiveState } from "./active";
import type { CommitItem, DecidedBy, DeliveryRow, OutboxRow, OutcomeRow, ResumableRun, ReviewRow, RunQuery, RunRow, RunStatus, TimerRow, TransitionRow } from "./types";

export type Row = Record<string, unknown>;

/** The Run table's columns (a run's snapshot and context are in its Snapshot row at the run's seq). */
export const RUN_COLS = `"id","workflow","status","state","input","output","error","entered","version","seq","parentId","forkOf","forkSeq","scheduleId","retries","waitingSince","failedStates","createdAt","updatedAt","finishedAt","name","replayOf","replay"`;

/**
 * A whole run row as the readers take it: the Run columns and the snapshot and context of its
 * Snapshot row at the run's seq. `FROM ${RUN_FROM}` names the run table `r`.
 */
export const RUN_SELECT = `${RUN_COLS.split(",").map((c) => `r.${c}`).join(",")},s."snapshot",s."context"`;
export const RUN_FROM = `"Run" r LEFT JOIN "Snapshot" s ON s."runId" = r."id" AND s."seq" = r."seq"`;

/**
 * The Run columns written: RUN_COLS and `inFlight`, the number of effects the run's snapshot has in
 * flight (no reader needs it: a restart loads only the unfinished runs with some, lib/engine/evict.ts).
 */
export const RUN_WRITE_COLS = `${RUN_COLS},"inFlight"`;
export type RunColumn = keyof RunRow | "inFlight";

/** The Run columns a step rewrites, in WRITES.updateRun's order (the others are written once, with the run). */
export const RUN_UPDATED = ["status", "state", "output", "error", "entered", "version", "seq", "retries", "waitingSince", "failedStates", "updatedAt", "finishedAt", "inFlight"] as const;

/** Effects a persisted snapshot has in flight: invoked children still active (what Run.inFlight holds). */
export function effectsInFlight(snapshot: Record<string, unknown>): number {
  const children = (snapshot as { children?: Record<string, { src?: unknown; snapshot?: { status?: string } }> }).children;
  let n = 0;
  if (children) for (const id in children) if (children[id]?.snapshot?.status === "active" && typeof children[id]?.src === "string") n++;
  return n;
}

/** The Snapshot row a commit writes at its run's seq, in WRITES.putSnapshot's order. */
export const SNAPSHOT_COLS = `"runId","seq","first","snapshot","context","timers","at"`;

/** The other tables a commit writes: their columns, in the order both stores pass values. */
export const TRANSITION_COLS = `"runId","seq","from","to","event","reason","at","durationMs","payload"`;
export const TIMER_COLS = `"runId","id","dueAt","event","seq"`;
export const REVIEW_COLS = `"id","runId","workflow","state","kind","prompt","payload","status","decision","feedback","reviewer","createdAt","decidedAt","seq"`;
export const ARTIFACT_COLS = `"runId","name","content","size","updatedAt"`;
/** The engine's outbox of post-commit actions, and webhook deliveries due for a commit (both written with it). */
export const OUTBOX_COLS = `"key","runId","seq","workflow","name","payload","dueAt","createdAt"`;
export const DELIVERY_COLS = `"id","webhookId","runId","hook","body","status","attempts","nextAt","createdAt"`;

/** Effect outcomes (lib/change): one row per invocation key (the same outcome committed again stays one row). */
export const OUTCOME_COLS = `"key","runId","state","seq","effect","inputHash","output","error","source","at"`;
export const insertOutcomesSql = (source: string) => `INSERT INTO "EffectOutcome" (${OUTCOME_COLS}) ${source} ON CONFLICT ("key") DO NOTHING`;
export const outcomeValues = (o: OutcomeRow, date: (ms: number) => unknown): unknown[] => [o.key, o.runId, o.state, o.seq, o.effect, o.inputHash, json(o.output), json(o.error), o.source, date(o.at)];
/** A review a replay decided: the source review it repeated (the engine's decision, not a person's). */
export const MARK_REPLAYED = (p: (i: number) => string) => `UPDATE "Review" SET "replayedFrom"=${p(1)},"decidedBy"='engine' WHERE "id"=${p(2)}`;
/** A review's routing (lib/reviews/routing.ts): its groups and deadline when it opens, its groups when it is escalated. */
export const ROUTE_REVIEW = (p: (i: number) => string) => `UPDATE "Review" SET "assignedTo"=${p(1)},"dueAt"=${p(2)},"escalatedFrom"=${p(3)} WHERE "id"=${p(4)}`;
export const ESCALATE_REVIEW = (p: (i: number) => string) => `UPDATE "Review" SET "assignedTo"=${p(1)},"escalatedFrom"=${p(2)} WHERE "id"=${p(3)} AND "status"='pending'`;
/** Does an opened review carry routing (most do not: no statement for them)? */
export const routed = (r: ReviewRow) => (r.assignedTo?.length ?? 0) > 0 || (r.dueAt ?? null) !== null;
export const groupsJson = (g: string[] | null | undefined) => (g ? JSON.stringify(g) : null);
/** A migration's new version pin (the run's input is otherwise written once, with the run). */
/** a fleet counter's increment (lib/fleet/counters.ts): the row is created at 0 first */
export const ADD_FLEET = (values: string) =>
  `INSERT INTO "FleetCount" ("workflow","version","hour","kind","key","bucket","n") ${values} ON CONFLICT ("workflow","version","hour","kind","key","bucket") DO UPDATE SET "n" = "FleetCount"."n" + excluded."n"`;
export const SET_INPUT = (p: (i: number) => string) => `UPDATE "Run" SET "input"=${p(1)} WHERE "id"=${p(2)}`;

/** Inserts of commit rows from `source` (`VALUES (…)`, or a SELECT of many rows), the same statements on both stores. */
export const insertTransitionsSql = (source: string) => `INSERT INTO "Transition" (${TRANSITION_COLS}) ${source}`;
export const openReviewsSql = (source: string) => `INSERT INTO "Review" (${REVIEW_COLS}) ${source}`;
/** An action's row written again (the same step committed again after a failed write) stays one row. */
export const insertOutboxSql = (source: string) => `INSERT INTO "ActionOutbox" (${OUTBOX_COLS}) ${source} ON CONFLICT ("key") DO NOTHING`;
/** Deliveries are pending and due at once (status, attempts and nextAt are given as 'pending', 0 and createdAt). */
export const insertDeliveriesSql = (source: string) => `INSERT INTO "WebhookDelivery" (${DELIVERY_COLS}) ${source} ON CONFLICT ("id") DO NOTHING`;
export const OUTBOX_CLAIM = (p: (i: number) => string) => `UPDATE "ActionOutbox" SET "dueAt"=${p(1)},"attempts"="attempts"+1 WHERE "key"=${p(2)} AND "attempts"=${p(3)}`;
export const OUTBOX_FAILED = (p: (i: number) => string) => `UPDATE "ActionOutbox" SET "lastError"=${p(1)},"dueAt"=${p(2)},"attempts"=${p(3)} WHERE "key"=${p(4)}`;
/** An outbox row's column values for the insert (OUTBOX_COLS order). */
export const outboxValues = (o: OutboxRow, date: (ms: number) => unknown): unknown[] => [o.key, o.runId, o.seq, o.workflow, o.name, JSON.stringify(o.payload), date(o.dueAt), date(o.createdAt)];
/** A delivery's column values for the insert (DELIVERY_COLS order). */
export const deliveryValues = (d: DeliveryRow, date: (ms: number) => unknown): unknown[] => [d.id, d.webhookId, d.runId, d.hook, d.body, "pending", 0, date(d.createdAt), date(d.createdAt)];

/** A timer armed again replaces the one with its id. */
export const setTimersSql = (source: string) =>
  `INSERT INTO "Timer" (${TIMER_COLS}) ${source} ON CONFLICT ("runId","id") DO UPDATE SET "dueAt"=excluded."dueAt","event"=excluded."event","seq"=excluded."seq"`;
/** An artifact written whole replaces the stored one; an appended one adds to its content and size. */
export const putArtifactSql = (values: string, mode: "put" | "append") =>
  `INSERT INTO "Artifact" (${ARTIFACT_COLS}) VALUES (${values}) ON CONFLICT ("runId","name") DO UPDATE SET ${
    mode === "append" ? `"content"="Artifact"."content" || excluded."content","size"="Artifact"."size" + excluded."size"` : `"content"=excluded."content","size"=excluded."size"`
  },"updatedAt"=excluded."updatedAt"`;

/** The INSERT of a whole Run row, `?` placeholders in RUN_COLS order (inFlight left at 0: an imported run). */
export const RUN_INSERT = `INSERT INTO "Run" (${RUN_COLS}) VALUES (${RUN_COLS.split(",").map(() => "?").join(",")})`;
/** The engine's INSERT of a new run, `?` placeholders in RUN_WRITE_COLS order (runWriters' insert). */
export const RUN_INSERT_LIVE = `INSERT INTO "Run" (${RUN_WRITE_COLS}) VALUES (${RUN_WRITE_COLS.split(",").map(() => "?").join(",")})`;

/**
 * The upsert of commits' Snapshot rows (SNAPSHOT_COLS from `source`: `VALUES (…)`, or a SELECT
 * of many rows): a commit without transitions rewrites its run's row at the same seq and keeps
 * the first transition it answers for. `least` is the dialect's two-argument minimum (SQLite
 * `min`, PostgreSQL `least`).
 */
export const putSnapshotSql = (source: string, least: "min" | "least") =>
  `INSERT INTO "Snapshot" (${SNAPSHOT_COLS}) ${source} ON CONFLICT ("runId","seq") DO UPDATE SET "first"=${least}("Snapshot"."first",excluded."first"),"snapshot"=excluded."snapshot","context"=excluded."context","timers"=excluded."timers","at"=excluded."at"`;

/** A Snapshot row's timers column: the run's pending timers, due times in epoch ms. */
export const timersJson = (timers: readonly Pick<TimerRow, "id" | "dueAt" | "event" | "seq">[]) => JSON.stringify(timers.map((t) => ({ id: t.id, dueAt: t.dueAt, event: t.event, seq: t.seq })));

/** The first transition a commit's Snapshot row answers for (its run's seq when it made none). */
export const snapshotFirst = (item: CommitItem): number => item.snapshotFirst ?? item.transitions[0]?.seq ?? item.run.seq;

/** RUN_WRITE_COLS' names, unquoted */
export const RUN_NAMES = RUN_WRITE_COLS.split(",").map((c) => c.slice(1, -1)) as RunColumn[];

export const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/** A run row's column values for the insert (RUN_COLS order) and the update (RUN_UPDATED, then id and the version read), on a database whose date columns take `date(ms)`. */
export function runWriters(date: (ms: number) => unknown) {
  const maybe = (ms: number | null) => (ms === null ? null : date(ms));
  const value: Record<RunColumn, (r: RunRow) => unknown> = {
    id: (r) => r.id,
    workflow: (r) => r.workflow,
    status: (r) => r.status,
    state: (r) => JSON.stringify(r.state),
    snapshot: (r) => JSON.stringify(r.snapshot),
    context: (r) => JSON.stringify(r.context ?? null),
    input: (r) => JSON.stringify(r.input ?? null),
    output: (r) => json(r.output),
    error: (r) => json(r.error),
    entered: (r) => JSON.stringify(r.entered),
    version: (r) => r.version,
    seq: (r) => r.seq,
    parentId: (r) => r.parentId,
    forkOf: (r) => r.forkOf,
    forkSeq: (r) => r.forkSeq,
    scheduleId: (r) => r.scheduleId,
    retries: (r) => r.retries,
    waitingSince: (r) => maybe(r.waitingSince),
    failedStates: (r) => r.failedStates,
    createdAt: (r) => date(r.createdAt),
    updatedAt: (r) => date(r.updatedAt),
    finishedAt: (r) => maybe(r.finishedAt),
    name: (r) => r.name ?? null,
    replayOf: (r) => r.replayOf ?? null,
    replay: (r) => json(r.replay),
    // a finished run has none (an aborted one keeps its snapshot's children as they were)
    inFlight: (r) => (r.finishedAt === null ? effectsInFlight(r.snapshot) : 0),
  };
  return {
    insert: (r: RunRow): unknown[] => RUN_NAMES.map((c) => value[c](r)),
    update: (r: RunRow, expectVersion: number): unknown[] => [...RUN_UPDATED.map((c) => value[c](r)), r.id, expectVersion],
    /** the RUN_UPDATED columns' values alone */
    updated: (r: RunRow): unknown[] => RUN_UPDATED.map((c) => value[c](r)),
    /** the run's Snapshot row (SNAPSHOT_COLS) after a commit whose own transitions start at `first` */
    snapshot: (r: RunRow, first: number, timers: readonly TimerRow[]): unknown[] => [
      r.id,
      r.seq,
      first,
      value.snapshot(r),
      value.context(r),
      timersJson(timers),
      date(r.updatedAt),
    ],
  };
}
/** SQL (Timer `t` joined to its Run `r`): a timer still pending, of an unfinished run that is not imported. */
export const PENDING_TIMER = `r."status" IN ('running','waiting') AND ${notImported(`t."runId"`)}`;

/**
 * SQL (Run `r`): the runs a restart loads (lib/engine/evict.ts). Unfinished, not imported runs
 * with an effect in flight, and running runs with neither a timer nor a pending review (the
 * STUCK check fails those that accept no event either; a state that waits for an event is
 * tagged "waiting"). Runs waiting for a person, an event or a timer stay in the database.
 */
export const BOOT_RUNS = `r."id" IN (SELECT "id" FROM "Run" WHERE "inFlight" > 0 UNION SELECT b."id" FROM "Run" b WHERE b."status" = 'running' AND NOT EXISTS (SELECT 1 FROM "Timer" bt WHERE bt."runId" = b."id") AND NOT EXISTS (SELECT 1 FROM "Review" bv WHERE bv."runId" = b."id" AND bv."status" = 'pending')) AND r."finishedAt" IS NULL AND ${notImported(`r."id"`)}`;

/** Runs with their timers and reviews (the rows of one read each). */
export function group(runs: RunRow[], timers: TimerRow[], reviews: ReviewRow[]): ResumableRun[] {
  const byRun = new Map<string, ResumableRun>(runs.map((run) => [run.id, { run, timers: [], reviews: [] }]));
  for (const t of timers) byRun.get(t.runId)?.timers.push(t);
  for (const r of reviews) byRun.get(r.runId)?.reviews.push(r);
  return [...byRun.values()];
}

export const parse = (v: unknown) => (v === null || v === undefined ? null : JSON.parse(String(v)));
/** a JSON array of group names (null: none) */
function groups(v: unknown): string[] | null {
  const g = parse(v) as unknown;
  return Array.isArray(g) ? g.map(String) : null;
}
const num = (v: unknown) => Number(v);

export interface RowReaders {
  outbox(r: Row): OutboxRow;
  outcome(r: Row): OutcomeRow;
  run(r: Row): RunRow;
  transition(r: Row): TransitionRow;
  review(r: Row): ReviewRow;
  timer(r: Row): TimerRow;
}

/** The row readers of a database whose date columns read back through `date`. */
export function rowReaders(date: (v: unknown) => number): RowReaders {
  const maybeDate = (v: unknown) => (v === null || v === undefined ? null : date(v));
  return {
    outbox: (r) => ({
      key: r.key as string,
      runId: r.runId as string,
      seq: num(r.seq),
      workflow: r.workflow as string,
      name: r.name as string,
      payload: parse(r.payload),
      attempts: num(r.attempts),
      lastError: (r.lastError as string | null) ?? null,
      dueAt: date(r.dueAt),
      createdAt: date(r.createdAt),
    }),
    outcome: (r) => ({
      key: r.key as string,
      runId: r.runId as string,
      state: r.state as string,
      seq: num(r.seq),
      effect: r.effect as string,
      inputHash: r.inputHash as string,
      output: parse(r.output),
      error: parse(r.error),
      source: (r.source as OutcomeRow["source"]) ?? null,
      at: date(r.at),
    }),
    run: (r) => ({
      id: r.id as string,
      workflow: r.workflow as string,
      status: r.status as RunStatus,
      state: parse(r.state),
      snapshot: parse(r.snapshot),
      context: parse(r.context),
      input: parse(r.input),
      output: parse(r.output),
      error: parse(r.error),
      entered: parse(r.entered),
      version: num(r.version),
      seq: num(r.seq),
      parentId: (r.parentId as string | null) ?? null,
      forkOf: (r.forkOf as string | null) ?? null,
      forkSeq: r.forkSeq === null || r.forkSeq === undefined ? null : num(r.forkSeq),
      scheduleId: (r.scheduleId as string | null) ?? null,
      retries: num(r.retries ?? 0),
      waitingSince: maybeDate(r.waitingSince),
      failedStates: (r.failedStates as string | null) ?? null,
      createdAt: date(r.createdAt),
      updatedAt: date(r.updatedAt),
      finishedAt: maybeDate(r.finishedAt),
      name: (r.name as string | null | undefined) ?? null,
      // (only on replays: other rows read back as written)
      ...(r.replayOf ? { replayOf: r.replayOf as string } : {}),
      ...(r.replay ? { replay: parse(r.replay) } : {}),
    }),
    transition: (r) => ({
      runId: r.runId as string,
      seq: num(r.seq),
      from: parse(r.from),
      to: parse(r.to),
      event: r.event as string,
      reason: r.reason as string,
      at: date(r.at),
      durationMs: num(r.durationMs),
      payload: parse(r.payload),
    }),
    review: (r) => ({
      id: r.id as string,
      runId: r.runId as string,
      workflow: r.workflow as string,
      state: r.state as string,
      kind: r.kind as string,
      prompt: r.prompt as string,
      payload: parse(r.payload),
      status: r.status as ReviewRow["status"],
      decision: (r.decision as string | null) ?? null,
      feedback: (r.feedback as string | null) ?? null,
      reviewer: (r.reviewer as string | null) ?? null,
      createdAt: date(r.createdAt),
      decidedAt: maybeDate(r.decidedAt),
      seq: num(r.seq),
      ...(r.replayedFrom ? { replayedFrom: r.replayedFrom as string } : {}),
      decidedBy: (r.decidedBy as DecidedBy | null | undefined) ?? null,
      assignedTo: groups(r.assignedTo),
      dueAt: maybeDate(r.dueAt),
      escalatedFrom: groups(r.escalatedFrom),
    }),
    timer: (r) => ({ runId: r.runId as string, id: r.id as string, dueAt: date(r.dueAt), event: parse(r.event), seq: num(r.seq) }),
  };
}

/**
 * The runs list's filters on what live runs wait on and where they are (RunQuery.waitingFor,
 * .state, .unclaimedSince), for either dialect: `p` adds an argument and returns its placeholder.
 * The outer table is "Run", unaliased.
 */
export function liveParts(q: Pick<RunQuery, "waitingFor" | "state" | "unclaimedSince">, p: (v: unknown) => string): string[] {
  const parts: string[] = [];
  // the state or one inside it: the ActiveState rows (live, not imported runs only: lib/engine/store/active.ts)
  if (q.state !== undefined) parts.push(inActiveState(p(q.state)));
  if (!q.waitingFor?.length && q.unclaimedSince === undefined) return parts;
  parts.push(`"status" IN ('running','waiting')`, notImported(`"id"`));
  const reviewOpen = `"id" IN (SELECT v."runId" FROM "Review" v WHERE v."status" = 'pending')`;
  const openTasks = `(SELECT COUNT(*) FROM "Task" k WHERE k."runId" = "Run"."id" AND k."status" IN ('queued','claimed'))`;
  if (q.waitingFor?.length) {
    const any = [...new Set(q.waitingFor)].map((k) => {
      switch (k) {
        case "review":
          return reviewOpen;
        case "timer":
          return `"id" IN (SELECT m."runId" FROM "Timer" m)`;
        case "task":
          return `"id" IN (SELECT k."runId" FROM "Task" k WHERE k."status" IN ('queued','claimed'))`;
        case "effect":
          return `"inFlight" > ${openTasks}`;
        case "event":
          return `("inFlight" = 0 AND NOT ${reviewOpen})`;
      }
    });
    parts.push(`(${any.join(" OR ")})`);
  }
  if (q.unclaimedSince !== undefined) parts.push(`"id" IN (SELECT k."runId" FROM "Task" k WHERE k."status" = 'queued' AND k."updatedAt" <= ${p(q.unclaimedSince)})`);
  return parts;
}
