// Run use-cases behind the REST API and the server actions.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Runtime } from "../runtime-types";
import type { RunView } from "../engine/views";
import { transitionView } from "../engine/views";
import { runView } from "../engine/views";
import type { IdempotencyClaim, IdempotencyRow, RunQuery, RunStatus } from "../engine/store/types";
import { deriveGraph } from "../graph/derive";
import { findWorkflow, listWorkflows } from "../machines/registry";
import { InvalidError, NotFoundError } from "../engine/errors";
import { snapshotFor } from "../engine/fork";
import { assertStartable } from "../flows/status";
import { withDefaults } from "../machines/defaults";
import { NAME_MAX, runName, runSubtitle } from "../machines/run-name";
import { waitingFor } from "./waiting";
import type { Principal } from "../auth/accounts";
import { barredFrom, deciderOf } from "../auth/groups";

/**
 * The API shape of a run: `state` holds the seed's names of the active states, `stateIds` their
 * paths; `name` what the run is called (the same everywhere), `subtitle` what a long-lived run
 * works on now when that differs (a later cycle's request).
 */
export function runResource<E extends Record<string, unknown> = Record<string, never>>(run: RunView, extra: E = {} as E) {
  const def = findWorkflow(run.workflow, run.input);
  const names = new Map(def ? deriveGraph(def.machine).states.map((s) => [s.id, s.name]) : []);
  const name = runName(def, run, NAME_MAX);
  return { ...run, name, subtitle: runSubtitle(def, run, name), state: run.state.map((s) => names.get(s) ?? s), stateIds: run.state, ...extra };
}

/**
 * Record who started (or forked) a run: the sandbox counts the run's queued executions against
 * them (lib/sandbox/principal.ts). `principal` is lib/api/who.ts's key.
 */
async function recordPrincipal(rt: Runtime, runId: string, principal: string | undefined): Promise<void> {
  if (!principal) return;
  await rt.db.runPrincipal.upsert({ where: { runId }, create: { runId, principal, createdAt: BigInt(rt.clock.now()) }, update: {} });
}

/** How a run is started: all optional. */
export interface StartOptions {
  /** the request's Idempotency-Key, written with the run's first commit (lib/api/idempotency.ts) */
  idempotency?: IdempotencyClaim;
  /** who starts it (lib/api/who.ts), recorded before its first step can run code */
  principal?: string;
  /** what the run is called (else the definition's run_name, else the workflow's rule) */
  name?: string;
}

export async function startRun(rt: Runtime, workflow: string, input: unknown, { idempotency, principal, name }: StartOptions = {}) {
  if (!findWorkflow(workflow)) throw new InvalidError(`unknown workflow "${workflow}" (known: ${listWorkflows().map((w) => w.id).join(", ")})`);
  await assertStartable(rt.db, workflow);
  const merged = withDefaults(input, rt.defaults[workflow]);
  const id = randomUUID();
  // recorded first (its first step may run code at once), once the input is known to be taken: a refused start writes nothing
  const taken = z.safeParse(findWorkflow(workflow)!.input, merged ?? {}).success;
  if (taken) await recordPrincipal(rt, id, principal);
  let out;
  try {
    out = await rt.engine.start(workflow, merged ?? {}, { id, idempotency, name });
  } catch (e) {
    if (principal && taken) await rt.db.runPrincipal.deleteMany({ where: { runId: id } }).catch(() => {});
    throw e;
  }
  return runResource(out.run, { accepted: await rt.engine.acceptedNow(out.run.id) });
}

export interface RunFilters {
  status?: RunStatus[];
  workflow?: string;
  waiting?: boolean;
  q?: string;
  from?: number;
  to?: number;
  /** minutes a pending review has been waiting, at least */
  waitingLongerThan?: number;
  retrying?: boolean;
  failedIn?: string;
  /** runs a schedule started */
  scheduleId?: string;
  /** list replay and evaluation runs too */
  replays?: boolean;
  /** only the replays of this run */
  replayOf?: string;
  /** live runs waiting on any of these */
  waitingFor?: RunQuery["waitingFor"];
  /** live runs in this state or one inside it */
  state?: string;
  /** minutes an external worker's task has waited unclaimed, at least */
  unclaimedLongerThan?: number;
}

/** GET /api/runs's query as parsed (lib/api/schemas.ts RunListQuery) → the filters (its strings read as values). */
export function runFiltersOf<T extends { waiting?: string; retrying?: string; replays?: string }>(q: T): Omit<T, "waiting" | "retrying" | "replays"> & Pick<RunFilters, "waiting" | "retrying" | "replays"> {
  return { ...q, waiting: q.waiting === undefined ? undefined : q.waiting === "true", retrying: q.retrying === "true" || undefined, replays: q.replays === "1" || q.replays === "true" || undefined };
}

/** The run store's query for the runs list's filters (minutes and "now" resolved on the runtime's clock). */
export function storeQuery(rt: Runtime, q: RunFilters): Omit<RunQuery, "limit" | "offset"> {
  return {
    status: q.status,
    workflow: q.workflow,
    waitingForHuman: q.waiting,
    text: q.q || undefined,
    from: q.from,
    to: q.to,
    waitingSince: q.waitingLongerThan !== undefined ? rt.clock.now() - q.waitingLongerThan * 60_000 : undefined,
    retrying: q.retrying,
    failedIn: q.failedIn,
    scheduleId: q.scheduleId,
    replays: q.replays,
    replayOf: q.replayOf,
    waitingFor: q.waitingFor?.length ? q.waitingFor : undefined,
    state: q.state,
    unclaimedSince: q.unclaimedLongerThan !== undefined ? rt.clock.now() - q.unclaimedLongerThan * 60_000 : undefined,
  };
}

export async function listRuns(rt: Runtime, q: RunFilters & { limit?: number; offset?: number }) {
  const filter = storeQuery(rt, q);
  const [rows, total, counts] = await Promise.all([
    rt.store.listRuns({ ...filter, limit: q.limit ?? 50, offset: q.offset ?? 0 }),
    rt.store.countRuns(filter),
    rt.store.countByStatus(q.workflow),
  ]);
  // the pending reviews of this page's runs only (there may be any number in the system)
  const pending = await rt.store.listReviews({ status: "pending", runIds: rows.map((r) => r.id), limit: 10_000 });
  const waitingOn = new Map(pending.map((r) => [r.runId, r.id]));
  return {
    runs: rows.map((r) => {
      const { context: _c, ...rest } = runResource(runView(r, waitingOn.get(r.id) ?? null));
      return rest;
    }),
    total,
    counts,
  };
}

export async function getRun(rt: Runtime, id: string) {
  const run = await rt.engine.getRun(id);
  const accepted = await rt.engine.acceptedNow(id);
  // what it waits on (lib/api/waiting.ts)
  return runResource(run, { accepted, waitingFor: await waitingFor(rt, { id, status: run.status, accepted }) });
}

/** Runs by id in one query (those that exist, newest first): for pages that name many runs. */
export async function runsByIds(rt: Runtime, ids: string[]) {
  const unique = [...new Set(ids)];
  return unique.length ? rt.store.listRuns({ ids: unique, limit: unique.length }) : [];
}

/** The one run whose id starts with `prefix` (at least 4 hex digits), or null when none or several do. */
export async function runIdByPrefix(rt: Runtime, prefix: string): Promise<string | null> {
  if (!/^[0-9a-f-]{4,36}$/.test(prefix)) return null;
  const rows = await rt.store.listRuns({ idPrefix: prefix, limit: 2 });
  return rows.length === 1 ? rows[0]!.id : null;
}

export async function runTransitions(rt: Runtime, id: string, after = 0, limit = 10_000, withPayload = false) {
  await rt.engine.getRun(id); // 404 for an unknown run
  return (await rt.store.transitions(id, after, limit)).map((t) => transitionView(t, withPayload));
}

/** Send an event. `by`: the signed-in sender, recorded as the reviewer when the event decides a review. */
export async function sendEvent(rt: Runtime, id: string, event: unknown, by?: Principal | null, idempotency?: IdempotencyClaim) {
  // a decision sent as an event: only the assigned groups' members and admins (accounts on)
  const decider = await deciderOf(rt.db, by ?? null);
  const gate = decider === "any" ? undefined : (r: { assignedTo: string[] | null }) => barredFrom(decider, r.assignedTo);
  const out = await rt.engine.send(id, event, { ...(by ? { reviewer: by.name } : {}), idempotency, gate });
  return { run: runResource(out.run, { accepted: await rt.engine.acceptedNow(id) }), transitions: out.transitions };
}

/**
 * The answer to a keyed request whose first answer was not stored (the process died between the
 * commit and storing it): the run as it is now, and the transitions that request's commit wrote.
 */
export async function rebuiltStep(rt: Runtime, row: IdempotencyRow) {
  const transitions = row.toSeq >= row.fromSeq ? await rt.store.transitions(row.runId, row.fromSeq - 1, row.toSeq - row.fromSeq + 1) : [];
  return { run: await getRun(rt, row.runId), transitions: transitions.map((t) => transitionView(t, true)) };
}

/** Abort a run, and the unfinished runs it started (a processing-modes request's deep-research child). */
/** Fork a run at a transition: 201 with the new run and the seq of the snapshot it started from. */
export async function forkRun(rt: Runtime, id: string, body: { seq: number; context?: Record<string, unknown>; input?: unknown; reuse?: boolean }, principal?: string) {
  // a fork is a new run: not of a disabled or deleted workflow
  const source = await rt.store.getRun(id);
  if (source) await assertStartable(rt.db, source.workflow);
  const out = await rt.engine.fork(id, body);
  // (until this is written, the fork counts as the run it was forked from)
  await recordPrincipal(rt, out.run.id, principal);
  return { run: runResource(out.run, { accepted: await rt.engine.acceptedNow(out.run.id) }), fromSeq: out.fromSeq, transitions: out.transitions };
}

/** The runs forked from this one, oldest first, with the seq each started from. */
export async function runForks(rt: Runtime, id: string) {
  const rows = await rt.db.run.findMany({ where: { forkOf: id }, select: { id: true, forkSeq: true, status: true, createdAt: true }, orderBy: { createdAt: "asc" }, take: 100 });
  return rows.map((r) => ({ id: r.id, seq: r.forkSeq ?? 0, status: r.status, createdAt: r.createdAt.toISOString() }));
}

/** The run as it stood after the commit that wrote transition `seq` (context, active states, timers). */
export async function runSnapshot(rt: Runtime, id: string, seq: number) {
  const run = await rt.store.getRun(id);
  if (!run) throw new NotFoundError(`run ${id} not found`);
  if (seq > run.seq) throw new InvalidError(`seq must be a transition of run ${id}: 1 to ${run.seq}`);
  const snap = await snapshotFor(rt.store, id, seq);
  if (!snap) throw new NotFoundError(`run ${id} has no snapshot at seq ${seq}`);
  const value = (snap.snapshot as { value?: unknown }).value ?? null;
  // the context keys a fork from here may replace (what came from the run's input)
  const forkEditable = [...(findWorkflow(run.workflow, run.input)?.forkEditable ?? [])];
  return { runId: id, seq: snap.seq, requested: seq, at: new Date(snap.at).toISOString(), value, context: snap.context, forkEditable, timers: snap.timers.map((t) => ({ id: t.id, dueAt: new Date(t.dueAt).toISOString(), event: t.event })) };
}

export async function abortRun(rt: Runtime, id: string, reason?: string) {
  const out = await rt.engine.abort(id, reason || "aborted by user");
  const children = await rt.db.run.findMany({ where: { parentId: id, status: { in: ["running", "waiting"] } }, select: { id: true } });
  for (const c of children) await rt.engine.abort(c.id, `parent run ${id} was aborted`).catch(() => {});
  return { run: runResource(out.run, { accepted: await rt.engine.acceptedNow(id) }), transitions: out.transitions };
}
