// What a live run waits on (GET /api/runs/{id}'s `waitingFor`): one entry per thing — a review, a
// timer, an external worker's task, an event from outside (only at rest: no effect in flight and
// no review open), an effect in flight (a model call, an http step, code …). Empty for a finished
// run. `state` is a state id (its path), `stateName` the name the diagram shows.
import { reviewView, type RunView } from "../engine/views";
import { inFlightEffects, invokingState } from "../engine/invariant";
import type { ReviewRow, RunRow, TimerRow } from "../engine/store/types";
import { typedReview } from "./review-types";
import { WAITING_KINDS } from "./schemas";
import { deriveGraph, type WorkflowGraph } from "../graph/derive";
import { findWorkflow } from "../machines/registry";
import type { Runtime } from "../runtime";

export { WAITING_KINDS };
export type WaitingKind = (typeof WAITING_KINDS)[number];

interface Where {
  state: string;
  stateName: string;
}

export type WaitingFor =
  | (Where & { kind: "review"; reviewId: string; decisions: string[]; approvals: { so_far: number; needed: number; by: string[] }; dueAt: string | null })
  | (Where & { kind: "timer"; at: string; to: string | null })
  | (Where & { kind: "task"; queue: string; claimedBy: string | null; attempt: number; heartbeatAt: string | null; leaseUntil: string | null })
  | (Where & { kind: "event"; accepts: string[] })
  | (Where & { kind: "effect"; name: string; since: string | null });

/** An open task of an external worker (table Task), as much of it as viewers may see. */
export interface OpenTask {
  key: string;
  queue: string;
  stage: string;
  status: string;
  worker: string | null;
  attempt: number;
  updatedAt: number;
  leaseUntil: number | null;
}

const iso = (ms: number | null | undefined) => (typeof ms === "number" && Number.isFinite(ms) ? new Date(ms).toISOString() : null);
const prefixes = (id: string) => id.split(".").map((_, i, parts) => parts.slice(0, i + 1).join("."));

/** A review's due time carried in its payload (ms or ISO text), for reviews without a routing deadline. */
function ownDue(payload: unknown): number | null {
  const due = (payload as { dueAt?: unknown } | null)?.dueAt;
  if (typeof due === "number" && Number.isFinite(due)) return due;
  if (typeof due === "string" && !Number.isNaN(Date.parse(due))) return Date.parse(due);
  return null;
}

/** The pure part: the run and what it has open in, the entries out. */
export function waitingEntries(a: { row: RunRow; graph: WorkflowGraph; reviews: ReviewRow[]; timers: TimerRow[]; tasks: OpenTask[]; accepted: string[] }): WaitingFor[] {
  const { row, graph } = a;
  if (row.status !== "running" && row.status !== "waiting") return [];
  const names = new Map(graph.states.map((s) => [s.id, s.name]));
  const at = (state: string): Where => ({ state, stateName: names.get(state) ?? state.split(".").at(-1) ?? state });
  const byEvent = new Map<string, (typeof graph.transitions)[number]>();
  for (const t of graph.transitions) if (t.kind === "after" && (!byEvent.has(t.event) || byEvent.get(t.event)!.internal)) byEvent.set(t.event, t);
  const out: WaitingFor[] = [];
  const timers = [...a.timers].sort((x, y) => x.dueAt - y.dueAt);
  for (const r of a.reviews) {
    const typed = typedReview(reviewView(r), row.input);
    const timeout = timers.find((t) => {
      const edge = byEvent.get(String(t.event.type));
      return edge !== undefined && prefixes(r.state).includes(edge.source);
    });
    out.push({ kind: "review", ...at(r.state), reviewId: r.id, decisions: typed.decisions, approvals: typed.approvals, dueAt: iso(r.dueAt ?? ownDue(r.payload) ?? timeout?.dueAt ?? null) });
  }
  for (const t of timers) {
    const edge = byEvent.get(String(t.event.type));
    out.push({ kind: "timer", ...at(edge?.source ?? row.state[0] ?? ""), at: iso(t.dueAt)!, to: edge && !edge.internal ? edge.target : null });
  }
  const byKey = new Map(a.tasks.map((t) => [t.key, t]));
  const effects = inFlightEffects(row);
  const taskKeys = new Set<string>();
  for (const e of effects) {
    const task = byKey.get(e.key);
    if (task) {
      taskKeys.add(task.key);
      const claimed = task.status === "claimed";
      out.push({ kind: "task", ...at(invokingState(e.child, row.state)), queue: task.queue, claimedBy: claimed ? task.worker : null, attempt: task.attempt, heartbeatAt: claimed ? iso(task.updatedAt) : null, leaseUntil: claimed ? iso(task.leaseUntil) : null });
      continue;
    }
    const state = invokingState(e.child, row.state);
    const since = row.state.filter((s) => prefixes(s).includes(state)).map((s) => row.entered[s]).filter((x): x is number => typeof x === "number");
    out.push({ kind: "effect", ...at(state), name: e.src, since: iso(since.length ? Math.min(...since) : null) });
  }
  // a task whose effect this snapshot does not show (written by another process a moment ago)
  for (const t of a.tasks) if (!taskKeys.has(t.key)) out.push({ kind: "task", ...at(t.stage), queue: t.queue, claimedBy: t.status === "claimed" ? t.worker : null, attempt: t.attempt, heartbeatAt: t.status === "claimed" ? iso(t.updatedAt) : null, leaseUntil: t.status === "claimed" ? iso(t.leaseUntil) : null });
  if (effects.length === 0 && a.tasks.length === 0 && a.reviews.length === 0) {
    const decisions = new Set(graph.states.flatMap((s) => s.decisions.map((d) => d.toUpperCase())));
    const accepts = a.accepted.filter((e) => e !== "ABORT" && !decisions.has(e));
    if (accepts.length) {
      // per active state, the events it (or a group around it) handles; else the run's first state
      const handled = (leaf: string) => new Set(graph.transitions.filter((t) => prefixes(leaf).includes(t.source)).map((t) => t.event));
      let any = false;
      for (const leaf of row.state) {
        const own = handled(leaf);
        const mine = accepts.filter((e) => own.has(e));
        if (mine.length) {
          any = true;
          out.push({ kind: "event", ...at(leaf), accepts: mine });
        }
      }
      if (!any) out.push({ kind: "event", ...at(row.state[0] ?? ""), accepts });
    }
  }
  return out;
}

/** `waitingFor` of a run: its pending reviews, timers and open tasks read, `accepted` as the run view has it. */
export async function waitingFor(rt: Runtime, run: Pick<RunView, "id" | "status"> & { accepted?: string[] }): Promise<WaitingFor[]> {
  if (run.status !== "running" && run.status !== "waiting") return [];
  const row = await rt.store.getRun(run.id);
  if (!row || (row.status !== "running" && row.status !== "waiting")) return [];
  const def = findWorkflow(row.workflow, row.input);
  if (!def) return [];
  const [reviews, timers, tasks] = await Promise.all([
    rt.store.listReviews({ runId: row.id, status: "pending", limit: 100 }),
    rt.store.timers(row.id),
    rt.db.task.findMany({ where: { runId: row.id, status: { in: ["queued", "claimed"] } }, orderBy: { createdAt: "asc" }, take: 100 }),
  ]);
  return waitingEntries({
    row,
    graph: deriveGraph(def.machine),
    reviews,
    timers,
    tasks: tasks.map((t) => ({ key: t.key, queue: t.queue, stage: t.stage, status: t.status, worker: t.worker, attempt: t.attempt, updatedAt: Number(t.updatedAt), leaseUntil: t.leaseUntil === null ? null : Number(t.leaseUntil) })),
    accepted: run.accepted ?? [],
  });
}
