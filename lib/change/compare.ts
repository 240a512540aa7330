// GET /api/runs/{a}/compare/{b} (guide 19 §2): two runs of one workflow (any versions, a fork and
// its source, a replay and its source) side by side, aligned on the statechart path: each visit of
// a state is a step keyed "<state id>#<visit>". Per step and side: the transition that entered it,
// the event that left it, the effect's output, the review's decision, the model tokens spent there
// and the time it took; the first step where the runs went apart, and why. Pure reads.
import type { Db } from "../db/client";
import { InvalidError } from "../engine/errors";
import type { OutcomeRow, ReviewRow, RunStore } from "../engine/store/types";
import { pinOf } from "../engine/views";
import { sameJson, unpinned } from "./canonical";
import { keyAt, runRecords, type RunRecords } from "./records";
import { sourceDecision } from "./replay-source";
import { visitAt, type Visit } from "./visits";

export interface CompareDecision {
  decision: string;
  feedback?: string;
  reviewer?: string;
  /** an edit's corrected value */
  edited?: unknown;
  /** the value the review showed */
  shown?: unknown;
  /** a replay repeated its source's decision here (no person decided) */
  replayed?: true;
}

export interface CompareSide {
  seq: number;
  /** the event that left the state (null: the run is still there) */
  event: string | null;
  output?: unknown;
  decision?: CompareDecision;
  tokens: number;
  ms: number;
}

export interface CompareStep {
  key: string;
  state: string;
  a: CompareSide | null;
  b: CompareSide | null;
  same: boolean;
}

export type DivergenceReason = "path" | "event" | "output" | "decision" | "input";

export interface Comparison {
  a: { id: string; workflow: string; workflowVersion: number | null };
  b: { id: string; workflow: string; workflowVersion: number | null };
  steps: CompareStep[];
  firstDivergence: { key: string; state: string; reason: DivergenceReason; a: { seq: number | null }; b: { seq: number | null } } | null;
  totals: { a: { transitions: number; tokens: number; ms: number }; b: { transitions: number; tokens: number; ms: number } };
}

interface SideData extends CompareSide {
  inputHash: string | null;
}

interface Call {
  runId: string | null;
  key: string | null;
  state: string | null;
  promptTokens: number;
  completionTokens: number;
  createdAt: Date;
}

/** The runs whose model calls a run's visits hold: itself and, for a fork, its source (up to the fork point). */
function lineageIds(rec: RunRecords): string[] {
  return rec.run.forkOf ? [rec.run.id, rec.run.forkOf] : [rec.run.id];
}

/** A step effect's output is { output, by, prompt, attempts }: its output is what it made. */
function shownOutput(o: OutcomeRow): unknown {
  if (o.error) return { error: o.error };
  if (o.effect.startsWith("step.") && o.output && typeof o.output === "object" && "output" in (o.output as object)) return (o.output as { output: unknown }).output;
  return o.output;
}

async function decisionOf(store: RunStore, rec: RunRecords, r: ReviewRow): Promise<CompareDecision> {
  const d = await sourceDecision(store, rec.transitions, r);
  const shown = (r.payload as { show?: unknown } | null)?.show;
  return {
    decision: d.decision,
    ...(d.feedback !== undefined ? { feedback: d.feedback } : {}),
    ...(d.reviewer !== undefined ? { reviewer: d.reviewer } : {}),
    ...("edited" in d.data ? { edited: d.data.edited } : {}),
    shown: shown !== undefined ? shown : r.payload,
    ...(r.replayedFrom ? { replayed: true as const } : {}),
  };
}

async function sides(store: RunStore, db: Db, rec: RunRecords): Promise<Map<string, SideData>> {
  const leaves = rec.visits.filter((v) => v.leaf);
  const out = new Map<string, SideData>();
  const end = rec.run.finishedAt ?? rec.run.updatedAt;
  for (const v of leaves) out.set(v.key, { seq: v.seq, event: v.leftEvent, tokens: 0, ms: Math.max(0, (v.leftAt ?? end) - v.enteredAt), inputHash: null });
  // the effect each visit ran (an invoke on a compound state counts for the leaf it was in: the first one)
  const leafOf = (state: string, seq: number): Visit | undefined => {
    const exact = visitAt(leaves, state, seq);
    if (exact && exact.state === state) return exact;
    return leaves.filter((v) => v.state.startsWith(`${state}.`) && v.seq <= seq && (v.leftSeq === null || v.leftSeq >= seq)).at(0);
  };
  for (const o of rec.outcomes) {
    const v = leafOf(o.state, o.seq);
    const side = v && out.get(v.key);
    if (!side) continue;
    side.output = shownOutput(o);
    side.inputHash = o.inputHash;
  }
  for (const r of rec.reviews) {
    if (r.status !== "decided") continue;
    const k = keyAt(leaves, r.state, r.seq);
    const side = k && out.get(k);
    if (side) side.decision = await decisionOf(store, rec, r);
  }
  const calls: Call[] = await db.modelCall.findMany({ where: { runId: { in: lineageIds(rec) } }, select: { runId: true, key: true, state: true, promptTokens: true, completionTokens: true, createdAt: true }, take: 10_000 });
  for (const c of calls) {
    if (!c.state) continue;
    // the invocation key (runId:child:seq#purpose) names the transition that invoked the call
    const seq = c.key ? Number(/:(\d+)#[^#]*$/.exec(c.key)?.[1]) : NaN;
    let v: Visit | undefined;
    if (Number.isFinite(seq)) v = leafOf(c.state, seq);
    else {
      const at = c.createdAt.getTime();
      v = leaves.filter((x) => (x.state === c.state || x.state.startsWith(`${c.state}.`)) && x.enteredAt <= at && (x.leftAt === null || x.leftAt >= at)).at(-1);
    }
    const side = v && out.get(v.key);
    // a fork's visits before its fork point are its source's: their calls count (those after it, the source's own path, do not)
    const copied = c.runId === rec.run.forkOf && rec.run.forkSeq !== null && Number.isFinite(seq) && seq <= rec.run.forkSeq;
    if (side && (c.runId === rec.run.id || copied)) side.tokens += c.promptTokens + c.completionTokens;
  }
  return out;
}

/** Both runs' visit keys in one order: where a run went its own way, its steps come where they happened. */
function align(a: string[], b: string[]): string[] {
  const inA = new Set(a);
  const inB = new Set(b);
  const out: string[] = [];
  const done = new Set<string>();
  const push = (k: string) => {
    if (!done.has(k)) {
      done.add(k);
      out.push(k);
    }
  };
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && done.has(a[i]!)) i++;
    else if (j < b.length && done.has(b[j]!)) j++;
    else if (i < a.length && j < b.length && a[i] === b[j]) {
      push(a[i]!);
      i++;
      j++;
    } else if (j < b.length && !inA.has(b[j]!)) push(b[j++]!);
    else if (i < a.length && !inB.has(a[i]!)) push(a[i++]!);
    else if (i < a.length) push(a[i++]!);
    else push(b[j++]!);
  }
  return out;
}

const publicSide = (s: SideData | undefined): CompareSide | null => {
  if (!s) return null;
  const { inputHash: _h, ...rest } = s;
  void _h;
  return rest;
};

const sameDecision = (x?: CompareDecision, y?: CompareDecision) => (!x && !y) || (!!x && !!y && x.decision === y.decision && (x.feedback ?? null) === (y.feedback ?? null) && sameJson(x.edited ?? null, y.edited ?? null));

/** Why two sides of a step differ, in causal order (what went in, what came out, what people decided, where it went), or null. */
function difference(a: SideData | undefined, b: SideData | undefined): DivergenceReason | null {
  if (!a || !b) return "path";
  if (a.inputHash !== null && b.inputHash !== null && a.inputHash !== b.inputHash) return "input";
  if (!sameJson(a.output ?? null, b.output ?? null)) return "output";
  if (!sameDecision(a.decision, b.decision)) return "decision";
  if (a.event !== b.event) return "event";
  return null;
}

export async function compareRuns(deps: { store: RunStore; db: Db }, aId: string, bId: string): Promise<Comparison> {
  const [a, b] = await Promise.all([runRecords(deps.store, aId), runRecords(deps.store, bId)]);
  if (a.run.workflow !== b.run.workflow) throw new InvalidError(`run ${aId} is a ${a.run.workflow} run and run ${bId} a ${b.run.workflow} run: only runs of one workflow compare`);
  const [sa, sb] = await Promise.all([sides(deps.store, deps.db, a), sides(deps.store, deps.db, b)]);
  const order = align([...sa.keys()], [...sb.keys()]);
  const stateOf = (k: string) => k.slice(0, k.lastIndexOf("#"));
  const steps: CompareStep[] = order.map((key) => {
    const x = sa.get(key);
    const y = sb.get(key);
    return { key, state: stateOf(key), a: publicSide(x), b: publicSide(y), same: difference(x, y) === null };
  });
  let firstDivergence: Comparison["firstDivergence"] = null;
  const first = steps[0];
  if (first && !sameJson(unpinned(a.run.input), unpinned(b.run.input))) {
    // started with different input (the version pin aside): they differ from the start
    firstDivergence = { key: first.key, state: first.state, reason: "input", a: { seq: first.a?.seq ?? null }, b: { seq: first.b?.seq ?? null } };
  } else {
    for (const s of steps) {
      const why = difference(sa.get(s.key), sb.get(s.key));
      if (why) {
        firstDivergence = { key: s.key, state: s.state, reason: why, a: { seq: s.a?.seq ?? null }, b: { seq: s.b?.seq ?? null } };
        break;
      }
    }
  }
  const total = (rec: RunRecords, s: Map<string, SideData>) => ({
    transitions: rec.transitions.length,
    tokens: [...s.values()].reduce((n, x) => n + x.tokens, 0),
    ms: Math.max(0, (rec.run.finishedAt ?? rec.run.updatedAt) - rec.run.createdAt),
  });
  const head = (rec: RunRecords) => ({ id: rec.run.id, workflow: rec.run.workflow, workflowVersion: pinOf(rec.run.input) });
  return { a: head(a), b: head(b), steps, firstDivergence, totals: { a: total(a, sa), b: total(b, sb) } };
}
