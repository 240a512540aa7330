// A draft of one commit: the steps of one run folded into the rows they write (run row,
// transitions, timers, reviews). Pure: building a draft touches nothing; the engine commits
// it and only then acts on it.
import type { AnyMachineSnapshot, EventObject } from "xstate";
import type { StateMeta, WorkflowDefinition } from "../machines/types";
import { activeGroups, activeLeaves, activeNodes, persist, stateId, type ExecutableAction, type StepResult } from "./step";
import { categoryOf } from "./effect-error";
import type { CommitItem, IdempotencyClaim, OutcomeRow, ReviewClose, ReviewRoute, ReviewRow, RunRow, RunStatus, TimerRow, TransitionRow } from "./store/types";

export interface Draft {
  def: WorkflowDefinition;
  row: RunRow;
  /** the context before this commit (for artifact writers) */
  before: unknown;
  expectVersion: number | null;
  snapshot: AnyMachineSnapshot;
  /** child id → seq of the transition that invoked it (part of each effect's idempotency key) */
  effects: Record<string, number>;
  transitions: TransitionRow[];
  timersSet: Map<string, TimerRow>;
  timersClear: Set<string>;
  /** pending reviews by state id, as they will be after this commit */
  reviews: Map<string, ReviewRow>;
  reviewsOpen: ReviewRow[];
  reviewsClose: ReviewClose[];
  /** pending reviews re-routed (an escalation, lib/reviews/routing.ts) */
  reviewsRoute?: ReviewRoute[];
  actions: ExecutableAction[];
  /** per action, the seq of the transition that took it (part of its outbox key) */
  actionSeqs: number[];
  now: number;
  /** the first transition of this commit that is its own (see CommitItem.snapshotFirst) */
  snapshotFirst?: number;
  /** the Idempotency-Key of the request that made this commit (written with it) */
  idempotency?: IdempotencyClaim;
  /** effect outcomes this commit takes (lib/change: what each invocation was given and returned) */
  outcomes?: OutcomeRow[];
  /** the run's input replaced (a migration's version pin) */
  setInput?: unknown;
}

export function newDraft(
  def: WorkflowDefinition,
  row: RunRow,
  snapshot: AnyMachineSnapshot,
  reviews: Map<string, ReviewRow>,
  now: number,
  isNew: boolean,
): Draft {
  const effects = (row.snapshot as { effects?: Record<string, number> }).effects;
  return {
    def,
    row: { ...row, entered: { ...row.entered } },
    before: snapshot.context,
    expectVersion: isNew ? null : row.version,
    snapshot,
    effects: { ...(effects ?? {}) },
    transitions: [],
    timersSet: new Map(),
    timersClear: new Set(),
    reviews: new Map(reviews),
    reviewsOpen: [],
    reviewsClose: [],
    actions: [],
    actionSeqs: [],
    now,
  };
}

const MAX_STRING = 2_000;

function oversized(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return value.length > MAX_STRING;
  if (value === null || typeof value !== "object") return typeof value === "bigint" || typeof value === "function";
  if (depth > 6 || value instanceof Error) return true;
  if (Array.isArray(value)) return value.length > 100 || value.some((v) => oversized(v, depth + 1));
  for (const k in value) if (oversized((value as Record<string, unknown>)[k], depth + 1)) return true;
  return false;
}

/** A JSON-safe payload with long strings cut, so transition rows stay small (copied only when needed). */
export function compact(value: unknown): unknown {
  return oversized(value) ? copyCompact(value) : (value ?? null);
}

function copyCompact(value: unknown, depth = 0): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (typeof value === "string") return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}… [${value.length} chars]` : value;
  if (typeof value === "number" || typeof value === "boolean") return value;
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (depth > 6) return "[…]";
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => copyCompact(v, depth + 1));
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (typeof v !== "function") out[k] = copyCompact(v, depth + 1);
    return out;
  }
  return String(value);
}

/** An error as a run records it: its name, message and category (an EffectError's), and what a step sent. */
export function serializeError(e: unknown): { name: string; message: string; category?: string; request?: Record<string, unknown>; again?: string } {
  if (e && typeof e === "object") {
    const o = e as { name?: string; message?: string; request?: unknown; again?: unknown };
    const category = categoryOf(e);
    return {
      name: o.name ?? "Error",
      message: o.message ?? String(e),
      ...(category ? { category } : {}),
      // what a step effect sent before it failed (lib/steps/request.ts), and whether it ran again after a restart
      ...(o.request && typeof o.request === "object" && !Array.isArray(o.request) ? { request: o.request as Record<string, unknown> } : {}),
      ...(typeof o.again === "string" ? { again: o.again } : {}),
    };
  }
  return { name: "Error", message: String(e) };
}

function reviewStates(snapshot: AnyMachineSnapshot): Map<string, NonNullable<StateMeta["review"]>> {
  const out = new Map<string, NonNullable<StateMeta["review"]>>();
  for (const node of activeNodes(snapshot)) {
    const review = (node.meta as StateMeta | undefined)?.review;
    if (review) out.set(stateId(node), review);
  }
  return out;
}

export function statusOf(snapshot: AnyMachineSnapshot): RunStatus {
  if (snapshot.status === "error") return "failed";
  if (snapshot.status === "done") return snapshot.hasTag("failed") ? "failed" : snapshot.hasTag("aborted") ? "aborted" : "completed";
  if (snapshot.hasTag("failed")) return "failed";
  if (snapshot.hasTag("waiting")) return "waiting";
  return "running";
}

/**
 * Keeps Run.entered to the states active after the step: its leaves (set by the transitions) and
 * the groups around them — a group's time is when it was entered, from outside or again by a
 * transition whose target is the group or one around it (the fleet's group dwell,
 * lib/fleet/counters.ts). A group that stays keeps its time; one that was active before this was
 * recorded has none (its visit has no known start). Keys of states no longer active go (a group
 * left, the other region of a parallel state left from one of its regions).
 */
function enterGroups(d: Draft, res: StepResult): void {
  const groups = activeGroups(res.snapshot);
  const entered = d.row.entered;
  if (groups.length) {
    // a new run's draft starts from its first snapshot: nothing was active before it
    const before = d.expectVersion === null ? [] : activeGroups(d.snapshot);
    for (const g of groups) {
      const again = res.transitions.some((t) => t.targets.some((x) => x === g || g.startsWith(`${x}.`)));
      if (again || !before.includes(g)) entered[g] = d.now;
    }
  }
  const leaves = activeLeaves(res.snapshot);
  for (const k in entered) if (!leaves.includes(k) && !groups.includes(k)) delete entered[k];
}

/** Fold one step into the draft. `decided` closes that review as decided. */
export function addStep(
  d: Draft,
  res: StepResult,
  event: EventObject,
  opts: { decided?: ReviewClose; newId: () => string },
): void {
  const { now } = d;
  const { type: _type, ...data } = event as EventObject & Record<string, unknown>;
  void _type;
  const reentered = new Set<string>();
  for (const t of res.transitions) {
    const seq = ++d.row.seq;
    const since = t.from.map((s) => d.row.entered[s]).filter((x): x is number => typeof x === "number");
    const durationMs = since.length ? Math.max(0, now - Math.min(...since)) : 0;
    if (isRetry(t.event.type, t.reason)) d.row.retries++;
    if (t.targets.length) {
      for (const s of t.from) delete d.row.entered[s];
      for (const s of t.to) {
        d.row.entered[s] = now;
        reentered.add(s);
      }
    }
    d.transitions.push({
      runId: d.row.id,
      seq,
      from: t.from,
      to: t.to,
      event: t.event.type,
      reason: t.reason,
      at: now,
      durationMs,
      payload: compact({ ...(t.event === event ? data : { ...(t.event as object) }), edge: { source: t.source, targets: t.targets } }),
    });
  }
  for (const a of res.actions) {
    const p = (a.params ?? {}) as Record<string, unknown>;
    if (a.type === "xstate.raise" && typeof p.delay === "number") {
      const id = String(p.id ?? (p.event as EventObject).type);
      d.timersClear.delete(id);
      d.timersSet.set(id, { runId: d.row.id, id, dueAt: now + p.delay, event: p.event as Record<string, unknown>, seq: d.row.seq });
    } else if (a.type === "xstate.cancel") {
      const id = String(p.sendId);
      d.timersSet.delete(id);
      d.timersClear.add(id);
    } else if (a.type === "xstate.spawnChild") {
      // a dynamic spawn carries its id as a function; the created actor knows the resolved one
      const id = typeof p.id === "string" ? p.id : (p.actorRef as { id?: string } | undefined)?.id;
      if (id) d.effects[id] = d.row.seq;
    }
    d.actions.push(a);
    d.actionSeqs.push(d.row.seq);
  }
  enterGroups(d, res);
  d.snapshot = res.snapshot;
  const children = d.snapshot.children as Record<string, unknown>;
  // the effects the snapshot no longer has go: into a new object, not by delete (an object that
  // had keys deleted turns slow to copy and to serialise, and this one is both at every step)
  for (const id in d.effects) {
    if (id in children) continue;
    const kept: Record<string, number> = {};
    for (const k in d.effects) if (k in children) kept[k] = d.effects[k]!;
    d.effects = kept;
    break;
  }

  // reviews: close those whose state was left or re-entered, open one per review state entered
  const active = reviewStates(d.snapshot);
  for (const [state, review] of [...d.reviews]) {
    const decided = opts.decided?.id === review.id ? opts.decided : undefined;
    if (decided || !active.has(state) || reentered.has(state)) {
      d.reviews.delete(state);
      const opened = d.reviewsOpen.findIndex((r) => r.id === review.id);
      if (opened >= 0 && decided) {
        // opened and decided in one commit (a replay repeating its source's decision): written decided
        const { id: _id, ...close } = decided;
        void _id;
        d.reviewsOpen[opened] = { ...d.reviewsOpen[opened]!, ...close };
      } else if (opened >= 0) {
        d.reviewsOpen.splice(opened, 1);
      } else {
        d.reviewsClose.push(decided ?? { id: review.id, status: "cancelled", decision: null, feedback: null, reviewer: null, decidedAt: now });
      }
    }
  }
  for (const [state, meta] of active) {
    if (d.reviews.has(state)) continue;
    let view = { prompt: `Decide: ${meta.decisions.join(" / ")}`, payload: {} as Record<string, unknown> };
    try {
      if (d.def.review) view = d.def.review(state, d.snapshot.context);
    } catch {
      // keep the generic prompt: a broken view must not block the run
    }
    const review: ReviewRow = {
      id: opts.newId(),
      runId: d.row.id,
      workflow: d.row.workflow,
      state,
      kind: meta.kind,
      prompt: view.prompt,
      payload: compact(view.payload),
      status: "pending",
      decision: null,
      feedback: null,
      reviewer: null,
      createdAt: now,
      decidedAt: null,
      seq: d.row.seq,
    };
    d.reviews.set(state, review);
    d.reviewsOpen.push(review);
  }
}

/**
 * A transition that is a retry (what the runs list's "retrying" filter counts): a RETRY event,
 * or a reason that starts with the word "retry" ("Retry", "retry 2 of 3") or says "retried".
 */
export function isRetry(event: string, reason: string): boolean {
  return event === "RETRY" || /^retry\b/i.test(reason) || /\bretried\b/i.test(reason);
}

/**
 * Where a failed run failed, as "|A|B.C|": the state its error names, else the states its last
 * transition left (into the failure state), and the states it ended in.
 */
export function failureStates(error: unknown, lastFrom: string[], ended: string[]): string {
  const named = (error as { state?: unknown } | null)?.state;
  const where = typeof named === "string" && named ? [named] : lastFrom;
  return `|${[...new Set([...where, ...ended])].join("|")}|`;
}

/** The run row and commit item for the draft as it stands. `pending`: the timers armed before it. */
export function finishDraft(d: Draft, status?: RunStatus, pending: Iterable<TimerRow> = []): CommitItem {
  const def = d.def;
  const s = status ?? statusOf(d.snapshot);
  const terminal = s === "completed" || s === "failed" || s === "aborted";
  let output: unknown = d.row.output;
  try {
    output = def.output ? def.output(d.snapshot.context) : (d.snapshot.output ?? null);
  } catch {
    // keep the previous output
  }
  d.row = {
    ...d.row,
    status: s,
    state: activeLeaves(d.snapshot),
    snapshot: persist(def.machine, d.snapshot, { effects: d.effects }),
    context: d.snapshot.context,
    output: output ?? null,
    error: d.snapshot.status === "error" ? serializeError(d.snapshot.error) : s === "failed" ? d.row.error : s === "aborted" ? d.row.error : null,
    version: d.row.version + 1,
    waitingSince: d.reviews.size ? Math.min(...[...d.reviews.values()].map((r) => r.createdAt)) : null,
    failedStates: null,
    updatedAt: d.now,
    finishedAt: terminal ? d.now : null,
  };
  if (s === "failed") d.row.failedStates = failureStates(d.row.error, d.transitions.at(-1)?.from ?? [], d.row.state);
  let artifacts: CommitItem["artifacts"] = [];
  if (def.artifacts) {
    try {
      artifacts = def.artifacts({ runId: d.row.id, now: d.now, status: s, before: d.before, after: d.snapshot.context, transitions: d.transitions });
    } catch (e) {
      artifacts = [{ name: "logs/engine-errors.log", mode: "append", content: `${new Date(d.now).toISOString()} artifact writer failed: ${serializeError(e).message}\n` }];
    }
  }
  return {
    run: d.row,
    artifacts,
    expectVersion: d.expectVersion,
    transitions: d.transitions,
    timersSet: [...d.timersSet.values()],
    timersClear: [...d.timersClear],
    snapshotFirst: d.snapshotFirst,
    timers: [...[...pending].filter((t) => !d.timersClear.has(t.id) && !d.timersSet.has(t.id)), ...d.timersSet.values()],
    reviewsOpen: d.reviewsOpen,
    reviewsClose: d.reviewsClose,
    ...(d.outcomes?.length ? { outcomes: d.outcomes } : {}),
    ...(d.reviewsRoute?.length ? { reviewsRoute: d.reviewsRoute } : {}),
    ...(d.setInput !== undefined ? { setInput: d.setInput } : {}),
    ...(d.idempotency ? { idempotency: { ...d.idempotency, runId: d.row.id, fromSeq: d.transitions[0]?.seq ?? d.row.seq + 1, toSeq: d.row.seq } } : {}),
  };
}
