// What each step of a run did, for the run page's "Steps" view: read from the run's context
// (context.steps, written by lib/steps/compile.ts when a step finishes; context.enteredAt and
// visits, written by the flow machine when a stage is entered), its transitions (the order the
// stages ran in) and its reviews (every decision, with who decided). Pure: no I/O.
import type { FlowConfig } from "../flows/types";
import { own } from "../flows/types";
import { kindOf, type StepKind } from "./schema";
import type { StepRecord } from "./compile";
import type { RanAgain, StepRequest } from "./request";

export type StepStatus = "running" | "waiting" | "done" | "failed" | "timed out" | "left";

export interface StepDecision {
  decision: string;
  /** who decided: the signed-in person, or the name the reviewer gave */
  reviewer: string | null;
  feedback: string | null;
  at: string | null;
  /** "decided", "pending" or "cancelled" (a timeout moved the run on) */
  status: string;
}

export interface StepRow {
  stage: string;
  kind: StepKind;
  status: StepStatus;
  /** times the stage was entered */
  visits: number;
  /** when the stage was last entered / its step last finished (epoch ms) */
  enteredAt: number | null;
  finishedAt: number | null;
  /** time the last visit took (null while it runs: count from enteredAt) */
  durationMs: number | null;
  attempts: number | null;
  /** the output is from an earlier visit (the stage runs again) */
  earlier: boolean;
  output: unknown;
  hasOutput: boolean;
  /** an earlier step whose output is exactly this one (a review that passed DRAFT's text on unchanged) */
  sameAs: string | null;
  error: { name: string; message: string; category?: string } | null;
  /** what produced it (the model, "http 200", the sandbox engine, "approve by ana", the worker) */
  by: string | null;
  /** the llm prompt sent */
  prompt: string | null;
  /** the HTTP status an http step got */
  httpStatus: number | null;
  /** review: every decision, oldest first; approvals so far / needed */
  decisions: StepDecision[];
  approvals: { needed: number; by: string[] } | null;
  /** external: the worker that completed the task */
  worker: string | null;
  /** what the step sent: the http request, the code, the worker's task input, the llm prompt */
  request: StepRequest | null;
  /** it ran again under the same invocation (after a restart, or a lease that ran out) */
  again: RanAgain | null;
}

export interface StepsSource {
  flow: Pick<FlowConfig, "stages" | "steps" | "initial_stage">;
  context: unknown;
  /** the run's active state paths (run.state) */
  active: string[];
  transitions: { seq: number; to: string }[];
  reviews: { state: string; status: string; decision: string | null; reviewer: string | null; feedback: string | null; decidedAt: string | null; createdAt: string }[];
}

/** A stage's XState key (lib/flows/machine.ts: `.`, `#`, `\` and `%` written as %XX). */
const keyOf = (s: string) => (/[.#\\%]/.test(s) ? s.replace(/[.#\\%]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`) : s);
const lastSeg = (path: string) => path.split(".").at(-1)!;

interface Ctx {
  steps?: Record<string, StepRecord>;
  enteredAt?: Record<string, number>;
  visits?: Record<string, number>;
  approvals?: Record<string, string[]>;
  review?: { stage?: string; approvers?: string[] } | null;
}

/** "http 200" → 200; a failure "… answered 503 …" → 503. */
function httpStatusOf(rec: StepRecord | undefined): number | null {
  const by = /^http (\d{3})\b/.exec(rec?.by ?? "");
  if (by) return Number(by[1]);
  const failed = / answered (\d{3})\b/.exec(rec?.error?.message ?? "");
  return failed ? Number(failed[1]) : null;
}

function attemptsOf(rec: StepRecord | undefined): number | null {
  if (!rec) return null;
  if (typeof rec.attempts === "number") return rec.attempts;
  const m = /\(after (\d+) attempts\)/.exec(rec.error?.message ?? "");
  return m ? Number(m[1]) : null;
}

/** The steps of a run that have run (or run now), in the order they first ran. */
export function runSteps(src: StepsSource): StepRow[] {
  const ctx = (src.context ?? {}) as Ctx;
  const specs = src.flow.steps ?? {};
  const visits = ctx.visits ?? {};
  const first = new Map<string, number>([[keyOf(src.flow.initial_stage), -1]]);
  // `to` lists every state the transition left the run in ("A.B1.X,A.B2.Y" in parallel branches): each started then
  for (const t of [...src.transitions].sort((a, b) => a.seq - b.seq)) {
    for (const path of t.to.split(",")) {
      const k = lastSeg(path);
      if (k && !first.has(k)) first.set(k, t.seq);
    }
  }
  const activeKeys = new Set(src.active.map(lastSeg));
  const order = (s: string) => first.get(keyOf(s)) ?? Number.MAX_SAFE_INTEGER;
  const ran = src.flow.stages.filter((s) => own(specs, s) && ((own(visits, s) ?? 0) > 0 || own(ctx.steps ?? {}, s) || activeKeys.has(keyOf(s))));
  ran.sort((a, b) => order(a) - order(b) || src.flow.stages.indexOf(a) - src.flow.stages.indexOf(b));
  const json = (v: unknown) => {
    try {
      return JSON.stringify(v) ?? null;
    } catch {
      return null;
    }
  };
  const rows = ran.map((stage) => {
    const spec = own(specs, stage)!;
    const kind = kindOf(spec);
    const rec = own(ctx.steps ?? {}, stage);
    const enteredAt = own(ctx.enteredAt ?? {}, stage) ?? null;
    const isActive = activeKeys.has(keyOf(stage));
    // the stage was entered again after its step last finished: its record is the earlier visit's
    const earlier = !!rec && isActive && enteredAt !== null && rec.at < enteredAt;
    const current = earlier ? undefined : rec;
    const status: StepStatus = isActive
      ? kind === "review" || kind === "external" || kind === "wait"
        ? "waiting"
        : "running"
      : current?.error
        ? current.error.name === "Timeout"
          ? "timed out"
          : "failed"
        : current
          ? "done"
          : "left";
    const finishedAt = current ? current.at : null;
    const durationMs = enteredAt !== null && finishedAt !== null && finishedAt >= enteredAt ? finishedAt - enteredAt : null;
    const decisions: StepDecision[] =
      kind === "review"
        ? src.reviews
            .filter((r) => lastSeg(r.state) === keyOf(stage))
            .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
            .map((r) => ({ decision: r.decision ?? (r.status === "cancelled" ? "cancelled" : "pending"), reviewer: r.reviewer, feedback: r.feedback, at: r.decidedAt, status: r.status }))
        : [];
    const needed = spec.review?.approvers ?? 1;
    const approvedBy = isActive ? (own(ctx.approvals ?? {}, stage) ?? []) : ctx.review?.stage === stage ? (ctx.review.approvers ?? []) : [];
    return {
      stage,
      kind,
      status,
      visits: own(visits, stage) ?? (isActive ? 1 : 0),
      enteredAt,
      finishedAt,
      durationMs,
      attempts: kind === "llm" || kind === "http" || kind === "code" || kind === "external" ? attemptsOf(current) : null,
      earlier,
      output: rec?.output ?? null,
      hasOutput: !!rec && "output" in rec && rec.output !== undefined,
      sameAs: null as string | null,
      error: rec?.error ?? null,
      by: rec?.by ?? null,
      prompt: rec?.prompt ?? null,
      httpStatus: kind === "http" ? httpStatusOf(rec) : null,
      decisions,
      approvals: kind === "review" && needed > 1 ? { needed, by: approvedBy } : null,
      worker: kind === "external" ? (rec?.worker ?? null) : null,
      request: rec?.request ?? null,
      again: rec?.again ?? null,
    };
  });
  // a review's output is most often the value it showed, unchanged: name the step it came from
  rows.forEach((row, i) => {
    if (row.kind !== "review" || !row.hasOutput || row.output === null) return;
    const mine = json(row.output);
    // (an edit replaces the shown step's output too, marked "edited by …": that one is not "unchanged")
    const from = rows.slice(0, i).find((r) => r.hasOutput && r.kind !== "review" && !r.by?.startsWith("edited by") && json(r.output) === mine);
    if (from) row.sameAs = from.stage;
  });
  return rows;
}
