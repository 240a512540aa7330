// Steps → XState. A stage with an llm, http or code step invokes the effect "step.<kind>" (the
// engine runs it after the commit, with a stable invocation key, and restarts it after a crash);
// its input is the step with every template rendered from the run's context. A review step is a
// state with meta.review (the engine opens a review in the queue); approvals are counted in
// context until enough distinct people approved (an edit resets them and counts as its editor's
// approval of the new value; the route is taken when the quorum is reached). `wait` and `timeout` are XState `after` timers,
// which the engine keeps in the database. Routes (`next`, `on`, `on_error`, `timeout.to`) are the
// transitions out of the stage.
import { z } from "zod";
import { formatDuration } from "../format";
import type { DecisionRefusal, DecisionWho, StateMeta } from "../machines/types";
import { sameReviewer } from "../machines/reviewer";
import { editProblem, editTarget, offeredDecisions } from "./edit-shape";
import type { FlowConfig } from "../flows/types";
import { own } from "../flows/types";
import { kindOf, type StepSpec } from "./schema";
import { render, renderHeader, renderJson, type Scope } from "./template";
import { namesSecret, withoutRequests, type RanAgain, type StepRequest } from "./request";
import { whenHolds } from "./when";

export interface StepRecord {
  output?: unknown;
  error?: { name: string; message: string; category?: string };
  at: number;
  /** what produced it: the model's name, "http 200", the sandbox engine, a reviewer's decision */
  by?: string;
  /** the prompt an llm step sent (after rendering) */
  prompt?: string;
  /** how many attempts an llm, http or code step took (1 + its retries) */
  attempts?: number;
  /** external: the worker that completed the task */
  worker?: string;
  /** what the step sent (lib/steps/request.ts): never a secret's value */
  request?: StepRequest;
  /** the step ran again under the same invocation (a restart; an external task's lease ran out) */
  again?: RanAgain;
  /** a replay took it from its source run ("replayed"), or did not send the side effect ("skipped") */
  replayed?: "replayed" | "skipped";
}

export interface ReviewRecord {
  stage: string;
  decision: string;
  feedback?: string;
  edited?: unknown;
  reviewer?: string;
  /** everyone who approved (several approvers) */
  approvers?: string[];
}

/** What steps add to a flow's context. */
export interface StepContext {
  input: Record<string, unknown>;
  steps: Record<string, StepRecord>;
  review: ReviewRecord | null;
  /** review stage → who approved so far (reset when the stage is entered) */
  approvals: Record<string, string[]>;
  /** review stage → the edited value its approvers are asked to approve, and who edited it (this round) */
  edits?: Record<string, PendingEdit>;
}

export interface PendingEdit {
  value: unknown;
  by: string;
}

export const STEP_INVOKE = (stageKey: string) => `step-${stageKey}`;

type Ctx = StepContext & { lastTransitionAt: number | null; startedAt: number };
type Ev = { type: string; at?: number; output?: unknown; error?: unknown; reviewer?: string; feedback?: string; edited?: unknown; replayed?: "replayed" | "skipped" };

export const scopeOf = (ctx: StepContext): Scope => ({ input: ctx.input ?? {}, steps: ctx.steps ?? {}, review: ctx.review ?? null });

/** The input an effect gets: the step with its templates rendered. */
export function effectInput(stage: string, spec: StepSpec, ctx: StepContext, workflow = ""): Record<string, unknown> {
  const scope = scopeOf(ctx);
  const retry = spec.retry ? { max: spec.retry.max, backoff_s: spec.retry.backoff_s } : { max: 0, backoff_s: 0 };
  if (spec.llm) return { stage, prompt: render(spec.llm.prompt, scope), ...(spec.llm.system ? { system: render(spec.llm.system, scope) } : {}), ...(spec.llm.schema ? { schema: spec.llm.schema } : {}), retry };
  if (spec.http) {
    // header values as parts: text, and secrets by name only (the effect fills them in; never stored)
    const headers = Object.fromEntries(Object.entries(spec.http.headers ?? {}).map(([k, v]) => [k, renderHeader(v, scope)]));
    // the headers whose definition names a secret: the request record shows them as "[secret]"
    const secretHeaders = Object.entries(spec.http.headers ?? {}).filter(([, v]) => namesSecret(v)).map(([k]) => k);
    return { stage, url: render(spec.http.url, scope), method: spec.http.method, headers, ...(secretHeaders.length ? { secretHeaders } : {}), ...(spec.http.body !== undefined ? { body: renderJson(spec.http.body, scope) } : {}), ...(spec.http.max_bytes !== undefined ? { maxBytes: spec.http.max_bytes } : {}), retry };
  }
  // earlier steps as a worker or a program gets them: their outputs, not their requests
  const steps = withoutRequests(scope.steps as Record<string, Record<string, unknown>>);
  // an external worker's task (lib/tasks): its input is what the stage knows; retry counts the worker's retryable failures
  if (spec.external) return { stage, workflow, queue: spec.external.queue, input: { input: scope.input, steps, review: scope.review }, ...(spec.retry ? { retry } : {}) };
  if (spec.code) return { stage, language: spec.code.language, source: spec.code.source, scope: { input: scope.input, steps, review: scope.review }, ...(spec.code.timeout_ms ? { timeoutMs: spec.code.timeout_ms } : {}), retry };
  return { stage };
}

/** The edit of a review stage awaiting its quorum (several approvers), if any. */
const pendingEdit = (ctx: StepContext, stage: string): PendingEdit | undefined => (ctx.edits ? own(ctx.edits, stage) : undefined);

/** The value a review shows, rendered from the context (the edited value, once someone edited it this round). */
export function shownValue(stage: string, spec: StepSpec, ctx: StepContext): unknown {
  const edit = pendingEdit(ctx, stage);
  if (edit) return edit.value;
  const show = spec.review?.show;
  if (show === undefined) return null;
  return renderJson(show, scopeOf(ctx));
}

/** The review prompt and payload of a review stage (what the queue shows). */
export function reviewView(stage: string, spec: StepSpec, ctx: StepContext) {
  const r = spec.review!;
  const so = (ctx.approvals ?? {})[stage] ?? [];
  const edit = pendingEdit(ctx, stage);
  const counting = r.approvers > 1 ? ` (${so.length} of ${r.approvers} approvals${edit ? `, edited by ${edit.by}` : ""})` : "";
  const question = render(r.prompt, scopeOf(ctx));
  return {
    prompt: `${question}${counting}`,
    payload: { stage, question, show: shownValue(stage, spec, ctx), decisions: offeredDecisions(spec), approvals: { so_far: so.length, needed: r.approvers, by: so }, ...(edit ? { editedBy: edit.by } : {}) },
  };
}

/**
 * Why a reviewer's decision is refused before it is applied, or null: 422 for an edit that is not
 * shaped like what it replaces, or a quorum review decided without a name; 409 for the same
 * person approving twice (names compared normalised unless `who.verified`).
 */
export function refuseDecision(c: FlowConfig, stage: string, ctx: StepContext, decision: string, who: DecisionWho): DecisionRefusal | null {
  const spec = own(c.steps, stage);
  if (!spec?.review) return null;
  if (decision === "edit") {
    const why = editProblem(c, stage, spec, shownValue(stage, spec, ctx), who.data?.edited);
    if (why) return { status: 422, message: why };
  }
  const needed = spec.review.approvers;
  if (needed <= 1) return null;
  if (!who.reviewer) return { status: 422, message: `reviewer: ${stage} needs ${needed} distinct approvers: say who decides (reviewer)` };
  const name = who.reviewer;
  const earlier = decision === "approve" ? ((ctx.approvals ?? {})[stage] ?? []).find((a) => sameReviewer(a, name, who.verified)) : undefined;
  if (earlier !== undefined) return { status: 409, message: `${name} has already approved ${stage}${earlier !== name ? ` (as ${earlier})` : ""}; it needs another person's approval` };
  return null;
}

/** Client events for review decisions: approve, reject, edit (with `edited`), respond (with `feedback`), custom names. */
export function decisionEvents(c: FlowConfig): Record<string, z.core.$ZodType> {
  const out: Record<string, z.core.$ZodType> = {};
  const base = { feedback: z.string().max(20_000).optional(), reviewer: z.string().min(1).max(200).optional(), modifications: z.array(z.string().max(2_000)).max(100).optional() };
  for (const spec of Object.values(c.steps ?? {})) {
    for (const d of spec.review?.decisions ?? []) {
      const type = d.toUpperCase();
      if (out[type]) continue;
      if (d === "edit") out[type] = z.object({ type: z.literal(type), ...base, edited: z.json() });
      else if (d === "respond") out[type] = z.object({ type: z.literal(type), ...base, feedback: z.string().trim().min(1, "feedback: write the response").max(20_000) });
      else out[type] = z.object({ type: z.literal(type), ...base });
    }
  }
  return out;
}

interface Helpers {
  key: (stage: string) => string;
  /** the target of a route ("#KEY") */
  target: (to: string) => string;
  /** the run's failure end, for a step that fails with no on_error */
  failed: () => string;
  moved: (from: string, to: string, auto?: boolean) => unknown;
}

const ms = (s: number) => Math.round(s * 1000);

/** The state node config a stage's step adds (invoke / review / timers and the routes out). */
export function stepNode(c: FlowConfig, stage: string, spec: StepSpec, h: Helpers): Record<string, unknown> {
  const kind = kindOf(spec);
  const go = (to: string, extra: unknown[] = []) => ({ target: h.target(to), actions: [...extra, h.moved(stage, to, true)] });
  const config: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  const failTo = spec.on_error ?? null;
  const onFail = (action: unknown) => (failTo ? go(failTo, [action]) : { target: h.failed(), actions: [action] });
  if (spec.timeout) {
    const to = spec.timeout.to ?? failTo;
    const action = { type: "stepTimedOut", params: { stage, after_s: spec.timeout.after_s } };
    after[String(ms(spec.timeout.after_s))] = to ? { ...go(to, [action]), description: `timed out after ${spec.timeout.after_s} s` } : { target: h.failed(), actions: [action], description: `timed out after ${spec.timeout.after_s} s` };
  }
  const meta: StateMeta = { summary: `${kind} step`, ...(spec.timeout ? { timeout: formatDuration(spec.timeout.after_s * 1000) } : {}) };
  if (kind === "llm" || kind === "http" || kind === "code" || kind === "external") {
    const done = { type: "stepDone", params: { stage } };
    const routes: unknown[] = Object.entries(spec.on ?? {}).map(([outcome, to]) => ({ ...go(to, [done]), guard: { type: "outcomeIs", params: { outcome } }, description: outcome }));
    routes.push(...whenRoutes(stage, spec, "stepDone", {}, go, [done]));
    if (spec.next) routes.push({ ...go(spec.next, [done]), description: "done" });
    config.invoke = {
      id: STEP_INVOKE(h.key(stage)),
      src: `step.${kind}`,
      input: ({ context }: { context: StepContext }) => effectInput(stage, spec, context, c.id),
      onDone: routes,
      onError: { ...onFail({ type: "stepFailed", params: { stage } }), description: failTo ? "failed" : "failed: the run fails" },
    };
  } else if (kind === "review") {
    const r = spec.review!;
    const decisions = offeredDecisions(spec);
    meta.review = { kind: "step", decisions, ...(r.approvers > 1 ? { approvers: r.approvers } : {}), ...(r.assign ? { assign: r.assign } : {}), ...(r.due ? { due: r.due } : {}) };
    meta.summary = `review: ${decisions.join(" / ")}${r.approvers > 1 ? ` · ${r.approvers} approvers` : ""}`;
    config.tags = ["waiting", "human"];
    config.entry = [{ type: "reviewEntered", params: { stage } }];
    const on: Record<string, unknown> = {};
    const quorum = r.approvers > 1;
    /** the routes of decision `d`; `edited` (several approvers): taken once the last approval is in, and the round's value was edited or not */
    const routesOf = (d: string, edited?: boolean) => {
      const routed = own(spec.on, d);
      const to = routed ?? spec.next!;
      const decided = { type: "reviewed", params: { stage, decision: d } };
      const counted = edited !== undefined ? { needed: r.approvers, edited } : {};
      // a decision with no on.<decision> of its own goes by the when: guards first, then next
      const guarded = routed === undefined ? whenRoutes(stage, spec, "reviewed", { decision: d, ...counted }, go, [decided]) : [];
      if (edited === undefined) return guarded.length ? [...guarded, { ...go(to, [decided]), description: d }] : { ...go(to, [decided]), description: d };
      const of = `${r.approvers} approvals${edited ? " of the edited value" : ""}`;
      return [
        ...guarded.map((g) => ({ ...g, description: `${g.description} (${of})` })),
        { ...go(to, [decided]), guard: { type: "approvalsDone", params: { stage, ...counted } }, description: of },
      ];
    };
    for (const d of decisions) {
      if (quorum && d === "approve") {
        // the approval that completes the quorum takes on.edit when the value was edited this round, else on.approve
        on.APPROVE = [...(decisions.includes("edit") ? (routesOf("edit", true) as unknown[]) : []), ...(routesOf("approve", false) as unknown[]), { actions: [{ type: "approved", params: { stage } }], description: "approval counted" }];
      } else if (quorum && d === "edit") {
        on.EDIT = { actions: [{ type: "editCounted", params: { stage } }], description: "edit counted as its editor's approval (earlier approvals reset)" };
      } else on[d.toUpperCase()] = routesOf(d);
    }
    config.on = on;
  } else if (kind === "wait") {
    const w = spec.wait!;
    const delay = w.after_s !== undefined ? String(ms(w.after_s)) : untilDelay(w.until!);
    const waited = { type: "stepWaited", params: { stage } };
    const last = { ...go(spec.next!, [waited]), description: w.after_s !== undefined ? `waited ${w.after_s} s` : `waited until ${w.until}` };
    const guarded = whenRoutes(stage, spec, "stepWaited", {}, go, [waited]);
    after[delay] = guarded.length ? [...guarded, last] : last;
    meta.summary = w.after_s !== undefined ? `wait ${w.after_s} s` : `wait until ${w.until}`;
  }
  if (Object.keys(after).length) config.after = after;
  config.meta = meta;
  return config;
}

/**
 * The `when:` entries of a step as guarded routes, in order: each holds when its expression is
 * true of the context as the step's own update (`update`: its output, a review's decision) leaves it.
 */
function whenRoutes(stage: string, spec: StepSpec, update: "stepDone" | "reviewed" | "stepWaited", extra: Record<string, unknown>, go: (to: string, extra?: unknown[]) => object, actions: unknown[]) {
  return (spec.when ?? []).map((w) => ({ ...go(w.to, actions), guard: { type: "whenTrue", params: { stage, expr: w.if, update, ...extra } }, description: `when ${w.if}` }));
}

const untilDelay = (until: string) => `until_${Date.parse(until)}`;

/** Named delays of `wait: { until }` steps: the time left from the event that entered the stage. */
export function stepDelays(c: FlowConfig): Record<string, (a: { context: Ctx; event: Ev }) => number> {
  const out: Record<string, (a: { context: Ctx; event: Ev }) => number> = {};
  for (const spec of Object.values(c.steps ?? {})) {
    const until = spec.wait?.until;
    if (until) out[untilDelay(until)] = ({ context, event }) => Math.max(0, Date.parse(until) - (event.at ?? context.lastTransitionAt ?? context.startedAt));
  }
  return out;
}

const errorOf = (e: unknown): StepRecord["error"] => {
  const o = (e ?? {}) as { name?: string; message?: string; category?: string };
  return { name: o.name ?? "Error", message: o.message ?? String(e), ...(o.category ? { category: o.category } : {}) };
};

const when = (ctx: Ctx, e: Ev) => e.at ?? ctx.lastTransitionAt ?? ctx.startedAt;

/** the request a step effect reports sending (with its result, or on its error), and whether it ran again */
const sent = (o: unknown): Pick<StepRecord, "request" | "again"> => {
  const r = (o ?? {}) as { request?: unknown; again?: unknown };
  return {
    ...(r.request && typeof r.request === "object" ? { request: r.request as StepRequest } : {}),
    ...(r.again === "restart" || r.again === "lease" ? { again: r.again } : {}),
  };
};

/** Guards steps use (merged into the flow machine's setup). */
export function stepGuards(c: FlowConfig) {
  const updates = stepUpdates(c);
  return {
    whenTrue: ({ context, event }: { context: Ctx; event: Ev }, p: { stage: string; expr: string; update: "stepDone" | "reviewed" | "stepWaited"; decision?: string; needed?: number; edited?: boolean }) => {
      if (p.needed !== undefined && !quorumReached(context, p as { stage: string; needed: number; edited?: boolean })) return false;
      const after = { ...context, ...(updates[p.update] as (c: Ctx, e: Ev, p: unknown) => Partial<Ctx>)(context, event, p) };
      return whenHolds(p.expr, scopeOf(after));
    },
    outcomeIs: ({ event }: { event: Ev }, p: { outcome: string }) => {
      const out = (event.output as { output?: unknown } | undefined)?.output;
      return !!out && typeof out === "object" && (out as { outcome?: unknown }).outcome === p.outcome;
    },
    approvalsDone: ({ context }: { context: Ctx }, p: { stage: string; needed: number; edited?: boolean }) => quorumReached(context, p),
  };
}

/** This approval completes the quorum of `p.stage` (and the round's value was edited, or not, as `p.edited` says). */
function quorumReached(ctx: Ctx, p: { stage: string; needed: number; edited?: boolean }): boolean {
  if (((ctx.approvals ?? {})[p.stage]?.length ?? 0) + 1 < p.needed) return false;
  return p.edited === undefined || (pendingEdit(ctx, p.stage) !== undefined) === p.edited;
}

const withoutEdit = (ctx: StepContext, stage: string): Record<string, PendingEdit> => Object.fromEntries(Object.entries(ctx.edits ?? {}).filter(([s]) => s !== stage));

/** Pure context updates of steps (merged into the flow machine's setup as assign actions). */
export function stepUpdates(c: FlowConfig) {
  const put = (ctx: Ctx, stage: string, rec: StepRecord) => ({ steps: { ...ctx.steps, [stage]: rec } });
  return {
    stepDone: (ctx: Ctx, e: Ev, p: { stage: string }) => {
      const out = (e.output ?? {}) as { output?: unknown; by?: string; prompt?: string; attempts?: number; worker?: string };
      return put(ctx, p.stage, { output: out.output ?? null, at: when(ctx, e), ...(out.by ? { by: out.by } : {}), ...(out.worker ? { worker: out.worker } : {}), ...(out.prompt !== undefined ? { prompt: out.prompt } : {}), ...(typeof out.attempts === "number" ? { attempts: out.attempts } : {}), ...sent(out), ...(e.replayed ? { replayed: e.replayed } : {}) });
    },
    stepFailed: (ctx: Ctx, e: Ev, p: { stage: string }) => put(ctx, p.stage, { error: errorOf(e.error), at: when(ctx, e), ...sent(e.error), ...(e.replayed ? { replayed: e.replayed } : {}) }),
    stepTimedOut: (ctx: Ctx, e: Ev, p: { stage: string; after_s: number }) => put(ctx, p.stage, { error: { name: "Timeout", message: `${p.stage} timed out after ${p.after_s} s` }, at: when(ctx, e) }),
    stepWaited: (ctx: Ctx, e: Ev, p: { stage: string }) => put(ctx, p.stage, { output: { waited_until: new Date(when(ctx, e)).toISOString() }, at: when(ctx, e) }),
    reviewEntered: (ctx: Ctx, _e: Ev, p: { stage: string }) => ({ approvals: { ...ctx.approvals, [p.stage]: [] }, edits: withoutEdit(ctx, p.stage) }),
    approved: (ctx: Ctx, e: Ev, p: { stage: string }) => ({ approvals: { ...ctx.approvals, [p.stage]: [...((ctx.approvals ?? {})[p.stage] ?? []), e.reviewer ?? "(anonymous)"] } }),
    // several approvers: an edit replaces the value under review; the approvals given before were of another value
    editCounted: (ctx: Ctx, e: Ev, p: { stage: string }) => ({
      approvals: { ...ctx.approvals, [p.stage]: [e.reviewer ?? "(anonymous)"] },
      edits: { ...withoutEdit(ctx, p.stage), [p.stage]: { value: e.edited ?? null, by: e.reviewer ?? "(anonymous)" } },
    }),
    reviewed: (ctx: Ctx, e: Ev, p: { stage: string; decision: string }) => {
      const spec = own(c.steps, p.stage)!;
      // an edit decides at once (one approver) or once the quorum approved the edited value (several)
      const pending = p.decision === "edit" ? pendingEdit(ctx, p.stage) : undefined;
      const edited = p.decision === "edit" && (pending !== undefined || e.edited !== undefined);
      const value = pending ? pending.value : e.edited;
      const quorum = spec.review!.approvers > 1 && (p.decision === "approve" || pending !== undefined);
      const approvers = quorum ? [...((ctx.approvals ?? {})[p.stage] ?? []), ...(e.reviewer ? [e.reviewer] : [])] : undefined;
      const review: ReviewRecord = {
        stage: p.stage,
        decision: p.decision,
        ...(e.feedback !== undefined ? { feedback: e.feedback } : {}),
        ...(edited ? { edited: value } : {}),
        ...(e.reviewer ? { reviewer: e.reviewer } : {}),
        ...(approvers ? { approvers } : {}),
      };
      const editor = pending ? pending.by : (e.reviewer ?? "a reviewer");
      const by = pending ? `edit by ${pending.by}, approved by ${approvers!.slice(1).join(", ")}` : `${p.decision}${e.reviewer ? ` by ${e.reviewer}` : ""}`;
      const steps = { ...ctx.steps, [p.stage]: { output: edited ? value : shownValue(p.stage, spec, ctx), at: when(ctx, e), by, ...(e.replayed ? { replayed: e.replayed } : {}) } };
      // an edit of a shown step output (`show: "{{steps.X.output}}"`) replaces that output: later steps use the edited value
      const target = editTarget(spec);
      if (edited && target && "step" in target && steps[target.step]) steps[target.step] = { ...steps[target.step]!, output: value, by: `edited by ${editor}` };
      return { review, steps, approvals: { ...ctx.approvals, [p.stage]: [] }, edits: withoutEdit(ctx, p.stage) };
    },
  };
}
