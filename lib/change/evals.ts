// Evaluations from review decisions (issue 33 §3): every review a person decided (approve, edit,
// reject, a built-in's request-changes) is a labelled case. Each case's run is replayed against the
// candidate (a version, or a definition held in memory only, lib/change/candidates.ts): the
// candidate's run takes the source's recorded outputs where nothing changed, and at each review
// it reaches the scorer reads the value it shows (lib/change/scoring.ts), then decides as the
// source's reviewer did so the run goes on as the source did and later reviews are scored too.
// POST /api/evals answers 202 at once; the evaluation runs here and GET /api/evals/{id} reads it.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { IsoDate } from "../api/schemas";
import { InvalidError, NotFoundError } from "../engine/errors";
import { TERMINAL, type ReviewRow } from "../engine/store/types";
import { flowWorkflow } from "../flows/machine";
import { checkFlowSource, type FlowFormat } from "../flows/validate";
import { findWorkflow, isBuiltIn } from "../machines/registry";
import type { WorkflowDefinition } from "../machines/types";
import type { Runtime } from "../runtime";
import { candidateOf, holdCandidate, releaseCandidate } from "./candidates";
import { keyAt, runRecords } from "./records";
import { replayRun, replayTarget } from "./replay";
import { sourceDecision } from "./replay-source";
import { EQUALITY, labelOf, score } from "./scoring";

const runId = z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, "not a run id");

const Definition = z
  .object({ yaml: z.string().max(200_000).optional(), json: z.union([z.string().max(200_000), z.record(z.string(), z.unknown())]).optional(), mermaid: z.string().max(200_000).optional() })
  .strict()
  .refine((d) => [d.yaml, d.json, d.mermaid].filter((x) => x !== undefined).length === 1, { message: "definition: send exactly one of yaml, json or mermaid" });

export const EvalBody = z
  .object({
    workflow: z.string({ error: "workflow is required" }).min(1, "workflow is required").max(100),
    candidate: z.union([z.object({ definition: Definition }).strict(), z.object({ version: z.number().int().min(1, "versions start at 1").optional() }).strict()], {
      error: "candidate must be { version } or { definition: { yaml | json | mermaid } }",
    }),
    cases: z
      .object({
        from: z.literal("decided-reviews", { error: 'cases.from must be "decided-reviews"' }),
        since: IsoDate.optional(),
        limit: z.number().int().min(1).max(500, "at most 500 cases").optional(),
        runIds: z.array(runId).min(1).max(500).optional(),
      })
      .strict(),
  })
  .strict();
export type EvalRequest = z.infer<typeof EvalBody>;

export const EvalListQuery = z.object({ workflow: z.string().min(1).max(100).optional() }).strict();

export const EvalIdParam = z.object({ id: z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, "not an evaluation id") });

export interface EvalReport {
  id: string;
  status: "running" | "done";
  workflow: string;
  /** the version evaluated (null: a definition held in memory, or a built-in's code) */
  candidate: { version: number | null };
  /** labelled cases (reviews decided by a person), and how many are scored so far */
  cases: number;
  done: number;
  byState: Record<string, { cases: number; agree: number; agreement: number | null }>;
  agreement: number | null;
  regressions: { runId: string; replayId: string | null; state: string; decision: string; reason: string }[];
  /** decisions that are not cases (answer, continue, retry, custom …) */
  skipped: { runId: string; state: string; decision: string }[];
  /** model tokens the candidate's runs spent, and how long the evaluation took */
  tokens: number;
  ms: number;
  /** how "equal" was decided */
  equality: typeof EQUALITY;
  createdAt: string;
  finishedAt: string | null;
}

interface Progress {
  request: EvalRequest;
  runs: { runId: string; reviews: string[]; replayId?: string; done?: boolean; error?: string }[];
}

/** how long one case's candidate run may take before it is stopped and scored where it got to */
const CASE_DEADLINE_MS = 120_000;

const FORMATS: FlowFormat[] = ["yaml", "json", "mermaid"];

/** The candidate's definition: a registered version (or a built-in's code), or a source validated and never registered. */
export function candidateDefinition(workflow: string, candidate: EvalRequest["candidate"]): WorkflowDefinition {
  if (!("definition" in candidate)) return replayTarget(workflow, candidate.version);
  if (isBuiltIn(workflow)) throw new InvalidError(`${workflow} is a built-in workflow: its candidate is the code now running (send candidate: {})`);
  const d = candidate.definition;
  const format = FORMATS.find((f) => d[f] !== undefined)!;
  const raw = d[format]!;
  const source = typeof raw === "string" ? raw : JSON.stringify(raw, null, 2);
  const checked = checkFlowSource(format, source, { id: workflow });
  if (!checked.ok) throw new InvalidError(`the candidate definition is invalid: ${checked.issues.map((i) => (i.line ? `line ${i.line}: ${i.message}` : i.message)).join("; ")}`, { issues: checked.issues });
  if (checked.config.id !== workflow) throw new InvalidError(`the candidate definition is workflow "${checked.config.id}", not "${workflow}"`);
  return flowWorkflow(checked.config);
}

/** The reviews that are cases: decided by a person (no replay decided them, not in a replay's run), newest first. */
async function decidedReviews(rt: Runtime, workflow: string, cases: EvalRequest["cases"]): Promise<ReviewRow[]> {
  const limit = cases.limit ?? 100;
  const rows = await rt.db.review.findMany({
    where: { workflow, status: "decided", replayedFrom: null, ...(cases.since !== undefined ? { decidedAt: { gte: new Date(cases.since) } } : {}), ...(cases.runIds ? { runId: { in: cases.runIds } } : {}) },
    orderBy: [{ decidedAt: "desc" }, { id: "asc" }],
    take: limit * 4,
    select: { id: true, runId: true },
  });
  const replays = new Set((await rt.db.run.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.runId))] }, replayOf: { not: null } }, select: { id: true } })).map((r) => r.id));
  const picked = rows.filter((r) => !replays.has(r.runId)).slice(0, limit);
  const out: ReviewRow[] = [];
  for (const r of picked) {
    const row = await rt.store.getReview(r.id);
    if (row) out.push(row);
  }
  return out;
}

const emptyReport = (id: string, workflow: string, version: number | null, now: number): EvalReport => ({
  id,
  status: "running",
  workflow,
  candidate: { version },
  cases: 0,
  done: 0,
  byState: {},
  agreement: null,
  regressions: [],
  skipped: [],
  tokens: 0,
  ms: 0,
  equality: EQUALITY,
  createdAt: new Date(now).toISOString(),
  finishedAt: null,
});

/** POST /api/evals: validates, picks the cases, stores the evaluation and starts it here; `{ id }` at once (202). */
export async function startEval(rt: Runtime, body: EvalRequest): Promise<{ id: string; done: Promise<EvalReport> }> {
  if (!findWorkflow(body.workflow)) throw new NotFoundError(`unknown workflow "${body.workflow}"`);
  const def = candidateDefinition(body.workflow, body.candidate);
  const reviews = await decidedReviews(rt, body.workflow, body.cases);
  const id = randomUUID();
  const now = rt.clock.now();
  const byRun = new Map<string, string[]>();
  for (const r of [...reviews].reverse()) byRun.set(r.runId, [...(byRun.get(r.runId) ?? []), r.id]);
  const progress: Progress = { request: body, runs: [...byRun].map(([runId, ids]) => ({ runId, reviews: ids })) };
  const report = emptyReport(id, body.workflow, "definition" in body.candidate ? null : (def.version ?? null), now);
  report.cases = reviews.filter((r) => labelOf(r.decision ?? "") !== null).length;
  await rt.db.eval.create({ data: { id, workflow: body.workflow, candidate: JSON.stringify(body.candidate), cases: JSON.stringify(progress), status: "running", report: JSON.stringify(report), createdAt: new Date(now) } });
  if ("definition" in body.candidate) holdCandidate(id, def);
  // (never rejects: a failure to store the report ends the evaluation where it stands, as "running")
  return { id, done: runEval(rt, id, def, progress, report).catch(() => report) };
}

async function save(rt: Runtime, id: string, progress: Progress, report: EvalReport) {
  await rt.db.eval.update({ where: { id }, data: { cases: JSON.stringify(progress), report: JSON.stringify(report), status: report.status, finishedAt: report.finishedAt ? new Date(report.finishedAt) : null } });
}

/** The run has nowhere further to go in an evaluation: finished, or waiting (for a review no source decision answers, an event, a person). */
async function settled(rt: Runtime, runId: string, deadline: number): Promise<"finished" | "waiting" | "timed out"> {
  for (;;) {
    const run = await rt.store.getRun(runId);
    if (!run || TERMINAL.includes(run.status)) return "finished";
    if (run.status === "waiting") return "waiting";
    if (Date.now() > deadline) return "timed out";
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The value a review showed: a step review's `show`, a built-in's output or plan, else its whole payload. */
export function shownOf(payload: unknown): unknown {
  const p = (payload ?? {}) as Record<string, unknown>;
  for (const k of ["show", "output", "plan"]) if (k in p) return p[k];
  return payload;
}

async function scoreRun(rt: Runtime, entry: Progress["runs"][number], report: EvalReport) {
  const src = await runRecords(rt.store, entry.runId);
  const cand = entry.replayId ? await runRecords(rt.store, entry.replayId) : null;
  // reviews by visit key, in order (several approvers decide one after another at one key)
  const byKey = (rec: typeof src) => {
    const m = new Map<string, ReviewRow[]>();
    for (const r of rec.reviews) {
      const k = keyAt(rec.visits, r.state, r.seq);
      if (k) m.set(k, [...(m.get(k) ?? []), r]);
    }
    return m;
  };
  const srcByKey = byKey(src);
  const candByKey = cand ? byKey(cand) : new Map<string, ReviewRow[]>();
  for (const id of entry.reviews) {
    const r = src.reviews.find((x) => x.id === id);
    if (!r || !r.decision) continue;
    const label = labelOf(r.decision);
    if (!label) {
      report.skipped.push({ runId: entry.runId, state: r.state, decision: r.decision });
      continue;
    }
    const key = keyAt(src.visits, r.state, r.seq);
    const index = key ? (srcByKey.get(key) ?? []).findIndex((x) => x.id === r.id) : -1;
    const theirs = key && index >= 0 ? candByKey.get(key)?.[index] : undefined;
    const edited = label === "edit" ? (await sourceDecision(rt.store, src.transitions, r)).data.edited : undefined;
    const verdict = score(label, theirs ? shownOf(theirs.payload) : undefined, shownOf(r.payload), edited);
    const s = (report.byState[r.state] ??= { cases: 0, agree: 0, agreement: null });
    s.cases++;
    if (verdict.agree) s.agree++;
    else report.regressions.push({ runId: entry.runId, replayId: entry.replayId ?? null, state: r.state, decision: r.decision, reason: verdict.reason });
    s.agreement = s.agree / s.cases;
    report.done++;
  }
  const agree = Object.values(report.byState).reduce((n, s) => n + s.agree, 0);
  report.agreement = report.done ? agree / report.done : null;
}

async function runEval(rt: Runtime, id: string, def: WorkflowDefinition, progress: Progress, report: EvalReport): Promise<EvalReport> {
  try {
    for (const entry of progress.runs) {
      if (entry.done) continue;
      try {
        if (!entry.replayId) {
          const { run } = await replayRun(rt, entry.runId, { decisions: "replay", ...(!("definition" in progress.request.candidate) && progress.request.candidate.version ? { version: progress.request.candidate.version } : {}) }, { eval: id, def });
          entry.replayId = run.id;
          await save(rt, id, progress, report);
        }
        const how = await settled(rt, entry.replayId, Date.now() + CASE_DEADLINE_MS);
        // nothing more to score: a candidate run left waiting (a review no source decision answers) is stopped
        if (how !== "finished") await rt.engine.abort(entry.replayId, how === "waiting" ? "evaluation case scored: nothing left to follow" : "evaluation case timed out").catch(() => undefined);
      } catch (e) {
        entry.error = (e as Error).message;
      }
      await scoreRun(rt, entry, report);
      entry.done = true;
      await save(rt, id, progress, report);
    }
    const ids = progress.runs.map((r) => r.replayId).filter((x): x is string => !!x);
    const usage = ids.length ? await rt.db.modelCall.aggregate({ where: { runId: { in: ids } }, _sum: { promptTokens: true, completionTokens: true } }) : null;
    report.tokens = (usage?._sum.promptTokens ?? 0) + (usage?._sum.completionTokens ?? 0);
    const now = rt.clock.now();
    report.ms = Math.max(0, now - Date.parse(report.createdAt));
    report.status = "done";
    report.finishedAt = new Date(now).toISOString();
    await save(rt, id, progress, report);
    return report;
  } finally {
    releaseCandidate(id);
  }
}

export async function getEval(rt: Runtime, id: string): Promise<EvalReport> {
  const row = await rt.db.eval.findUnique({ where: { id } });
  if (!row) throw new NotFoundError(`evaluation ${id} not found`);
  return JSON.parse(row.report) as EvalReport;
}

export async function listEvals(rt: Runtime, workflow?: string, limit = 50): Promise<EvalReport[]> {
  const rows = await rt.db.eval.findMany({ where: workflow ? { workflow } : {}, orderBy: { createdAt: "desc" }, take: limit });
  return rows.map((r) => JSON.parse(r.report) as EvalReport);
}

/** The definition an evaluation ran (its candidate held again from the stored source when it is no longer in memory). */
export async function evalDefinition(rt: Runtime, id: string): Promise<WorkflowDefinition | null> {
  const held = candidateOf(id);
  if (held) return held;
  const row = await rt.db.eval.findUnique({ where: { id } });
  if (!row) return null;
  try {
    return candidateDefinition(row.workflow, JSON.parse(row.candidate) as EvalRequest["candidate"]);
  } catch {
    return null;
  }
}

/** Before the engine resumes runs: the candidates of evaluations still running are held again (their runs' machines). */
export async function holdRunningCandidates(db: Runtime["db"]): Promise<void> {
  for (const row of await db.eval.findMany({ where: { status: "running" }, select: { id: true, workflow: true, candidate: true } })) {
    const candidate = JSON.parse(row.candidate) as EvalRequest["candidate"];
    if (!("definition" in candidate)) continue;
    try {
      holdCandidate(row.id, candidateDefinition(row.workflow, candidate));
    } catch {
      // no longer valid here: its runs do not resume
    }
  }
}

/** After a restart: evaluations still running go on where they were. */
export async function resumeEvals(rt: Runtime): Promise<number> {
  const rows = await rt.db.eval.findMany({ where: { status: "running" } });
  for (const row of rows) {
    const progress = JSON.parse(row.cases) as Progress;
    const report = JSON.parse(row.report) as EvalReport;
    const def = candidateOf(row.id) ?? (() => {
      try {
        return candidateDefinition(row.workflow, progress.request.candidate);
      } catch {
        return null;
      }
    })();
    if (!def) continue;
    void runEval(rt, row.id, def, progress, report).catch(() => undefined);
  }
  return rows.length;
}
