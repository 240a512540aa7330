"use client";
import Link from "@/components/ui/link";
import { useEffect, useMemo, useState, useTransition } from "react";
import { abortAction, sendEventAction, type ActionResult } from "@/app/runs/[id]/actions";
import { WorkflowDiagram } from "@/components/diagram/workflow-diagram";
import { StatusBadge, WaitingBadge } from "@/components/ui/status-badge";
import { Ago, Since } from "@/components/ui/since";
import { CopyId } from "@/components/ui/copy-id";
import { RunExport } from "./run-export";
import { useRouter } from "next/navigation";
import type { RunResult } from "@/lib/machines/types";
import { RunResultCard } from "./run-result";
import type { RunFailure } from "@/lib/api/failure";
import type { TransitionView } from "@/lib/engine/views";
import type { GraphState } from "@/lib/graph/derive";
import type { Layout, LayoutPack } from "@/lib/graph/layout";
import { historyStatus } from "@/lib/graph/status";
import { formatTime, shortId } from "@/lib/format";
import { ContextPanel } from "./context-panel";
import { DecisionPanel, type ReviewInfo } from "./decision-panel";
import { DueBadge, routingOfInfo } from "@/components/reviews/due-badge";
import { Timeline } from "./timeline";
import { RunTimeline } from "@/components/timeline/run-timeline";
import { UsagePanel } from "./usage-panel";
import { RunViews } from "./run-views";
import { RunSteps } from "@/components/steps/run-steps";
import { StageHistory, StagePanel } from "@/components/flows/stage-panel";
import type { FlowConfig } from "@/lib/flows/types";
import type { FlowContext } from "@/lib/flows/rules";
import { fetchTransitions, laterRun, mergeTransitions } from "./run-stream";
import { Allowed, useRole } from "@/components/auth/role";
import { useWaitingFor, useWaitingOverlay, WaitingNow } from "./waiting-now";
import type { WaitingFor } from "@/lib/api/waiting";
import { PathView } from "./path-view";

export interface LiveRun {
  id: string;
  workflow: string;
  status: string;
  state: string[];
  stateIds: string[];
  context: unknown;
  output: unknown;
  error: unknown;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
  since: string | null;
  seq: number;
  reviewId?: string | null;
  parentId?: string | null;
  forkOf?: string | null;
  forkSeq?: number | null;
  /** a replay or evaluation case: its source run */
  replayOf?: string | null;
  replay?: { eval?: string } | null;
  accepted?: string[];
  /** what it waits on (lib/api/waiting.ts) */
  waitingFor?: WaitingFor[];
}

interface Props {
  initialRun: LiveRun;
  initialTransitions: TransitionView[];
  initialReview: ReviewInfo | null;
  layout: Layout | LayoutPack;
  states: GraphState[];
  title: string;
  /** what the run is about (its request, topic …), and its parent's */
  name?: string | null;
  /** what a long-lived run works on now, when that is not its name (a later cycle's request) */
  subtitle?: string | null;
  parentName?: string | null;
  /** a line above the results (the offline engine's notice) */
  notice?: React.ReactNode;
  /** what the run produced (computed by the server; refreshed when the run ends) */
  result?: RunResult | null;
  /** why a failed run failed and where to retry it (computed by the server; refreshed when the run ends) */
  failure?: RunFailure | null;
  eventFields: Record<string, { name: string; label: string; placeholder?: string }[]>;
  /** a stage machine's config (docs/guide/15-conversation-and-your-own-workflows.md): the run page shows its stage panel */
  flow?: FlowConfig | null;
  /** state id → messages of the workflow's open alerts (a badge on the diagram node) */
  alerts?: Record<string, string>;
}

const TERMINAL = ["completed", "failed", "aborted"];

function EventForm({ runId, type, fields }: { runId: string; type: string; fields: { name: string; label: string; placeholder?: string }[] }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [result, setResult] = useState<ActionResult | null>(null);
  const [pending, start] = useTransition();
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    start(async () => {
      const r = await sendEventAction({ runId, event: { type, ...values } });
      setResult(r);
      if (r.ok) setValues({});
    });
  };
  return (
    <form onSubmit={submit} className="space-y-2" data-testid={`event-form-${type}`}>
      {fields.map((f) => (
        <div key={f.name}>
          <label className="block text-xs font-medium text-slate-600 dark:text-slate-400" htmlFor={`ev-${f.name}`}>{f.label}</label>
          <textarea id={`ev-${f.name}`} rows={2} value={values[f.name] ?? ""} placeholder={f.placeholder} onChange={(e) => setValues({ ...values, [f.name]: e.target.value })} className="mt-1 w-full rounded-md border border-slate-300 dark:border-slate-600 px-2 py-1.5 text-sm" />
          {result?.fieldErrors?.[f.name] && <p className="text-xs text-red-600 dark:text-red-400">{result.fieldErrors[f.name]}</p>}
        </div>
      ))}
      <button disabled={pending} className="rounded-md bg-blue-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-700 disabled:opacity-50">
        {pending ? "Sending…" : fields.length ? "Send" : type}
      </button>
      {result && !result.ok && !result.fieldErrors && <p className="text-xs text-red-600 dark:text-red-400">{result.error}</p>}
    </form>
  );
}

function AbortControl({ runId, machineAbort }: { runId: string; machineAbort: boolean }) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const [result, setResult] = useState<ActionResult | null>(null);
  const [pending, start] = useTransition();
  if (!open) {
    return (
      <button onClick={() => setOpen(true)} className="rounded-md bg-white dark:bg-slate-900 px-3 py-1.5 text-sm font-medium text-red-700 dark:text-red-400 ring-1 ring-red-200 hover:bg-red-50 dark:hover:bg-red-950" data-testid="abort-open">
        {machineAbort ? "Abort…" : "Stop run…"}
      </button>
    );
  }
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="abort-form">
      <input autoFocus value={reason} onChange={(e) => setReason(e.target.value)} placeholder="Reason (optional)" className="h-8 w-48 rounded-md border border-slate-300 dark:border-slate-600 px-2 text-sm" />
      <button
        disabled={pending}
        onClick={() =>
          start(async () => {
            const r = await abortAction({ runId, reason });
            setResult(r);
            if (r.ok) setOpen(false);
          })
        }
        className="h-8 rounded-md bg-red-600 px-3 text-sm font-medium text-white hover:bg-red-700 disabled:opacity-50"
      >
        {machineAbort ? "Confirm abort" : "Stop the run"}
      </button>
      <button onClick={() => setOpen(false)} className="h-8 px-2 text-sm text-slate-600 dark:text-slate-400">Cancel</button>
      {result && !result.ok && <span className="text-xs text-red-600 dark:text-red-400">{result.error}</span>}
    </div>
  );
}

export function RunLive({ initialRun, initialTransitions, initialReview, layout, states, title, name = null, subtitle = null, parentName = null, notice = null, result = null, failure = null, eventFields, flow = null, alerts }: Props) {
  const [run, setRun] = useState(initialRun);
  const [transitions, setTransitions] = useState(initialTransitions);
  const [review, setReview] = useState<ReviewInfo | null>(initialReview);
  const [progress, setProgress] = useState<string>("");
  const [connected, setConnected] = useState(false);
  const router = useRouter();
  const { may } = useRole();
  // the result is the server's reading of the run: read it again once the run ends
  const ended = TERMINAL.includes(run.status);
  useEffect(() => {
    if (ended && !TERMINAL.includes(initialRun.status)) router.refresh();
  }, [ended, initialRun.status, router]);

  useEffect(() => {
    const source = new EventSource(`/api/runs/${initialRun.id}/stream`);
    source.onopen = () => setConnected(true);
    source.onerror = () => setConnected(false);
    source.addEventListener("hello", (e) => {
      const { run: r } = JSON.parse((e as MessageEvent).data) as { run: LiveRun };
      setRun((prev) => laterRun(prev, r));
      void fetchTransitions(initialRun.id).then((ts) => ts && setTransitions((prev) => mergeTransitions(prev, ts)));
    });
    source.addEventListener("run", (e) => {
      const msg = JSON.parse((e as MessageEvent).data) as { run: LiveRun; transitions: TransitionView[] };
      setRun((prev) => laterRun(prev, msg.run));
      setTransitions((prev) => mergeTransitions(prev, msg.transitions));
      if (msg.transitions.some((t) => t.from !== t.to)) setProgress("");
    });
    source.addEventListener("review", (e) => {
      const { review: r } = JSON.parse((e as MessageEvent).data);
      if (r.status === "pending") setReview(r);
      else setReview((prev) => (prev?.id === r.id ? null : prev));
    });
    source.addEventListener("progress", (e) => {
      const { message } = JSON.parse((e as MessageEvent).data);
      setProgress((p) => (p + message).slice(-4_000));
    });
    return () => source.close();
  }, [initialRun.id]);

  // the review may have opened before this page's stream connected: follow run.reviewId
  const reviewId = run.reviewId ?? null;
  useEffect(() => {
    if (!reviewId) {
      setReview(null);
      return;
    }
    if (review?.id === reviewId) return;
    let cancelled = false;
    fetch(`/api/reviews?runId=${encodeURIComponent(run.id)}&status=pending`)
      .then((res) => (res.ok ? res.json() : []))
      .then((list: ReviewInfo[]) => {
        if (!cancelled) setReview(list.find((r) => r.id === reviewId) ?? null);
      })
      .catch(() => {});
    return () => {
      cancelled = true;
    };
  }, [reviewId, review?.id, run.id]);

  const waitsOn = useWaitingFor(run.id, run.seq, initialRun.waitingFor, TERMINAL.includes(run.status));
  const waitingOverlay = useWaitingOverlay(waitsOn);
  const history = useMemo(() => historyStatus(transitions), [transitions]);
  const byId = useMemo(() => new Map(states.map((s) => [s.id, s])), [states]);
  const active = run.stateIds.map((id) => byId.get(id)).filter((s): s is GraphState => !!s);
  const terminal = TERMINAL.includes(run.status);
  const waitingHuman = !!review && run.reviewId !== undefined && active.some((s) => s.human);
  const decisions = active.find((s) => s.human)?.decisions ?? [];
  const accepted = run.accepted ?? [];
  const forms = accepted.filter((t) => t !== "ABORT" && !decisions.map((d) => d.toUpperCase()).includes(t));
  const ctx = run.context as {
    error?: { category?: string; message?: string; suggestions?: string[]; partial?: string } | null;
    warnings?: string[];
    last?: { outcome?: string; content?: string; feedback?: string; cycle?: number } | null;
    cycle?: number;
  } | null;
  // on a phone the path view stands in for the canvas, which is one tap away
  const [canvasOnPhone, setCanvasOnPhone] = useState(false);
  const waitingFor = waitingHuman ? `your decision: ${decisions.join(" / ")}` : !terminal && forms.length > 0 ? forms.join(", ") : null;
  const pathView = (
    <div className="sm:hidden max-sm:order-[-1]">
      <PathView
        graph={layout.graph}
        stateIds={run.stateIds}
        transitions={transitions}
        waitingFor={waitingFor}
        terminal={terminal}
        onShowDiagram={() => {
          setCanvasOnPhone(true);
          requestAnimationFrame(() => document.getElementById("run-diagram")?.scrollIntoView({ block: "start" }));
        }}
      />
    </div>
  );
  const outcomeStyle: Record<string, string> = {
    approved: "bg-emerald-100 text-emerald-900",
    rejected: "bg-red-100 text-red-800",
    aborted: "bg-amber-100 text-amber-900",
    failed: "bg-red-100 text-red-800",
    invalid: "bg-amber-100 text-amber-900",
  };

  return (
    <div className="space-y-4" data-testid="run-page" data-run={run.id} data-state={run.stateIds.join(",")} data-status={run.status}>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <div className="flex items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
            <Link href="/" className="hover:underline">Runs</Link>
            <span>/</span>
            <Link href={`/workflows/${run.workflow}`} className="hover:underline">{title}</Link>
          </div>
          <h1 className="mt-1 flex flex-wrap items-center gap-2 text-xl font-semibold tracking-tight">
            <span className={name ? "min-w-0 break-words" : "font-mono"} data-testid="run-title">{name ?? shortId(run.id)}</span>
            <StatusBadge status={run.status} />
            {waitingHuman && <WaitingBadge />}
            {!terminal && (
              <span className={`ml-1 inline-flex items-center gap-1 text-[11px] font-normal ${connected ? "text-emerald-700 dark:text-emerald-400" : "text-slate-400"}`} title="live updates" data-testid="live-dot">
                <span className={`h-1.5 w-1.5 rounded-full ${connected ? "bg-emerald-500" : "bg-slate-300"}`} />
                {connected ? "live" : "connecting"}
              </span>
            )}
          </h1>
          {subtitle && (
            <p className="mt-0.5 break-words text-sm text-slate-600 dark:text-slate-300" data-testid="run-subtitle">
              <span className="text-slate-600 dark:text-slate-400">now: </span>
              {subtitle}
            </p>
          )}
          <CopyId id={run.id} short={shortId(run.id)} />
          <p className="mt-0.5 text-xs text-slate-600 dark:text-slate-400">
            started {formatTime(run.createdAt)} · {run.finishedAt ? "ran for" : "running for"} <Since from={run.createdAt} until={run.finishedAt} /> · {transitions.length} transitions ·{" "}
            <Link href={`/runs/${run.id}/timeline`} className="text-blue-700 dark:text-blue-400 underline" data-testid="timeline-link">timeline and replay</Link>
            {flow?.steps && (
              <>
                {" · "}
                <a href="#steps" className="text-blue-700 dark:text-blue-400 underline" data-testid="steps-link">what each step did</a>
              </>
            )}
            {run.parentId && (
              <>
                {" · "}
                <Link href={`/runs/${run.parentId}`} className="text-blue-700 dark:text-blue-400 underline" data-testid="parent-run">
                  started by {parentName ? `“${parentName}”` : `run ${run.parentId.slice(0, 8)}`}
                </Link>
              </>
            )}
            {run.forkOf && (
              <>
                {" · "}
                <Link href={`/runs/${run.forkOf}/timeline`} className="text-violet-700 dark:text-violet-400 underline" data-testid="fork-of">
                  forked from run {run.forkOf.slice(0, 8)} at #{run.forkSeq}
                </Link>
                {" · "}
                <Link href={`/runs/${run.forkOf}/compare/${run.id}`} className="text-blue-700 dark:text-blue-400 underline" data-testid="compare-source">compare with source</Link>
              </>
            )}
            {run.replayOf && (
              <>
                {" · "}
                <Link href={`/runs/${run.replayOf}`} className="text-amber-800 dark:text-amber-300 underline" data-testid="replay-of">
                  {run.replay?.eval ? "evaluation case" : "replay"} of run {run.replayOf.slice(0, 8)}
                </Link>
                {" · "}
                <Link href={`/runs/${run.replayOf}/compare/${run.id}`} className="text-blue-700 dark:text-blue-400 underline" data-testid="compare-source">compare with source</Link>
              </>
            )}
          </p>
        </div>
        <div className="flex flex-wrap items-start gap-2">
          <RunExport runId={run.id} reportFile={result?.file} />
          {!terminal && may("operator") && <AbortControl runId={run.id} machineAbort={accepted.includes("ABORT")} />}
        </div>
      </div>

      {/* on a phone a run waiting for a decision keeps the first screen for the decision and the path: the notice goes below */}
      {notice && <div className={waitingHuman ? "max-sm:hidden" : undefined}>{notice}</div>}
      {terminal && <RunResultCard runId={run.id} status={run.status} result={result} failure={failure} error={(run.error as { retry?: unknown } | null)?.retry ? (run.error as { message?: string }) : ((ctx?.error as { message?: string } | null) ?? (run.error as { message?: string } | null) ?? null)} />}
      <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_420px]">
        <div className="min-w-0 space-y-4">
          {!waitingHuman && pathView}
          <div id="run-diagram" className={`overflow-hidden rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 ${canvasOnPhone ? "" : "hidden sm:block"}`}>
            <div className="flex flex-wrap items-center gap-3 border-b border-slate-100 dark:border-slate-800 px-4 py-2 text-[11px] text-slate-600 dark:text-slate-400">
              <span className="font-medium text-slate-700 dark:text-slate-300">State machine</span>
              <span className="inline-flex items-center gap-1"><span className="h-2.5 w-2.5 rounded-full bg-blue-600" /> active</span>
              <span className="inline-flex items-center gap-1"><span className="h-2.5 w-2.5 rounded-full bg-emerald-700" /> waiting for input</span>
              <span className="inline-flex items-center gap-1"><span className="h-2.5 w-2.5 rounded-full border-2 border-slate-400" /> visited</span>
              <span className="inline-flex items-center gap-1"><span className="h-2.5 w-2.5 rounded-full bg-red-500" /> failed</span>
              <span className="inline-flex items-center gap-1"><span className="inline-block h-0.5 w-4 bg-blue-700" /> taken</span>
            </div>
            <WorkflowDiagram layout={layout} status={{ active: run.stateIds, waiting: waitingHuman || (run.status === "waiting" && !terminal), visited: history.visited, failed: history.failed, taken: history.taken, last: history.last, abortedFrom: history.abortedFrom }} alerts={alerts} overlay={waitingOverlay} follow className="h-[calc(100vh-300px)] min-h-[420px] w-full" />
          </div>
          <RunViews workflow={run.workflow} runId={run.id} context={run.context} version={run.seq} />
          {flow?.steps && <RunSteps runId={run.id} flow={flow} context={run.context} active={run.state} transitions={transitions} seq={run.seq} />}
          {flow && (
            <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4">
              <h2 className="mb-2 text-sm font-semibold">Stage history</h2>
              <StageHistory context={run.context as FlowContext} />
            </div>
          )}
          <HistoryPanel transitions={transitions} states={states} layout={layout} live={!terminal} runId={run.id} />
        </div>

        {/* on a narrow screen, a run that waits for a person shows the decision first; on a phone the
            path (where the run is, what it waits for, where it can go) right after it */}
        <aside className={`flex min-w-0 flex-col gap-4 ${waitingHuman ? "order-first xl:order-none" : ""}`}>
          {waitingHuman && pathView}
          <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4" data-testid="now-panel">
            <div className="text-[11px] font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">Now</div>
            {active.map((s) => (
              <div key={s.id} className="mt-1">
                <div className="font-mono text-lg font-semibold text-slate-900 dark:text-slate-100" data-testid="current-state">
                  {s.id.includes(".") && <span className="text-slate-600 dark:text-slate-400">{s.id.split(".").slice(0, -1).join(" › ")} › </span>}
                  {s.name}
                </div>
                <p className="text-sm text-slate-600 dark:text-slate-400">{s.description ?? s.summary}</p>
              </div>
            ))}
            <p className="mt-2 text-xs text-slate-600 dark:text-slate-400" data-testid="in-state-for">
              {terminal ? (
                <>ended <Ago at={run.finishedAt ?? run.updatedAt} /></>
              ) : (
                <>
                  in this state for <Since from={run.since} />
                  {active[0]?.timeout ? ` · hard limit ${active[0].timeout}` : ""}
                </>
              )}
            </p>
            <WaitingNow waiting={waitsOn} />
            {ctx?.last?.outcome && (
              <div className="mt-3 flex flex-wrap items-center gap-2 text-xs" data-testid="last-outcome" data-outcome={ctx.last.outcome}>
                <span className="text-slate-600 dark:text-slate-400">{lastRequestLabel(ctx.last.cycle, ctx.cycle)}:</span>
                <span className={`rounded-full px-2 py-0.5 font-semibold ${outcomeStyle[ctx.last.outcome] ?? "bg-slate-100 dark:bg-slate-800"}`}>{ctx.last.outcome}</span>
                {ctx.last.feedback && <span className="text-slate-600 dark:text-slate-400">“{ctx.last.feedback}”</span>}
              </div>
            )}
            {ctx?.error && (
              <div className={`mt-3 rounded-md border px-3 py-2 text-xs ${ctx.error.category === "critical" ? "border-red-200 bg-red-50 text-red-800" : "border-amber-200 bg-amber-50 text-amber-900"}`} data-testid="run-error">
                <div className="font-medium">{ctx.error.category === "user" && ctx.last?.outcome === "aborted" ? "Aborted" : ctx.error.category === "user" ? "The request needs work" : "Error"}: {ctx.error.message}</div>
                {ctx.error.suggestions && ctx.error.suggestions.length > 0 && (
                  <ul className="mt-1 list-disc pl-4">
                    {ctx.error.suggestions.map((s, i) => (
                      <li key={i}>{s}</li>
                    ))}
                  </ul>
                )}
                {ctx.error.partial && <p className="mt-1 opacity-80">Partial result kept ({ctx.error.partial.length} characters).</p>}
              </div>
            )}
            {ctx?.warnings && ctx.warnings.length > 0 && !waitingHuman && (
              <ul className="mt-3 space-y-1 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-xs text-amber-900">
                {ctx.warnings.map((w, i) => (
                  <li key={i}>⚠ {w}</li>
                ))}
              </ul>
            )}
            {progress && !terminal && (
              <pre tabIndex={0} className="mt-3 max-h-40 overflow-auto whitespace-pre-wrap rounded-md bg-slate-900 px-3 py-2 font-mono text-[11px] text-slate-100" data-testid="progress">{progress}</pre>
            )}
          </div>

          {waitingHuman && review && <DecisionBox review={review} decisions={decisions} />}

          {flow && <StagePanel runId={run.id} flow={flow} context={run.context as FlowContext} terminal={terminal} accepted={accepted} />}

          {!flow && !terminal && forms.length > 0 && (
            <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4">
              <Allowed need="operator">
                {forms.map((type) => (
                  <EventForm key={type} runId={run.id} type={type} fields={eventFields[type] ?? []} />
                ))}
              </Allowed>
            </div>
          )}

          {notice && waitingHuman && <div className="sm:hidden">{notice}</div>}

          <UsagePanel runId={run.id} version={run.seq} />

          <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4">
            <h2 className="mb-2 text-sm font-semibold">Context record</h2>
            <ContextPanel context={run.context} />
          </div>
        </aside>
      </div>
    </div>
  );
}

/**
 * The decision a run waits for. On a phone it is a compact box of its own height, first on the
 * page with the path right after it: what is to be decided scrolls inside the box, its decision
 * bar (sticky) stays at the box's bottom, and "Show all" lets the box grow to its whole length.
 */
function DecisionBox({ review, decisions }: { review: ReviewInfo; decisions: string[] }) {
  const [whole, setWhole] = useState(false);
  const compact = whole ? "" : "max-sm:max-h-[320px] max-sm:pb-0 max-sm:overflow-y-auto max-sm:overscroll-contain";
  return (
    <div className={`order-first rounded-xl border-2 border-emerald-600 bg-white p-4 xl:order-none dark:bg-slate-900 ${compact}`} data-testid="decision-box" data-compact={whole ? undefined : ""}>
      <div className="mb-2 flex items-center justify-between gap-2">
        <h2 className="text-[11px] font-semibold uppercase tracking-wide text-emerald-800 dark:text-emerald-300">Your decision is needed</h2>
        <button type="button" onClick={() => setWhole(!whole)} className="text-xs text-blue-700 hover:underline sm:hidden dark:text-blue-400" aria-expanded={whole} data-testid="decision-whole">
          {whole ? "Show less" : "Show all"}
        </button>
      </div>
      <div className="mb-2 empty:hidden">
        <DueBadge {...routingOfInfo(review)} now={Date.now()} />
      </div>
      <DecisionPanel review={review} decisions={decisions} />
    </div>
  );
}

/** The run's history: the list of transitions, or the Gantt with its replay cursor. */
function HistoryPanel({ transitions, states, layout, live, runId }: { transitions: TransitionView[]; states: GraphState[]; layout: Layout | LayoutPack; live: boolean; runId: string }) {
  const [tab, setTab] = useState<"list" | "gantt">("list");
  return (
    <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4" data-testid="history-panel">
      <div className="mb-2 flex items-center gap-3">
        <h2 className="text-sm font-semibold">Mission timeline</h2>
        {(["list", "gantt"] as const).map((t) => (
          <button key={t} onClick={() => setTab(t)} className={`rounded-md px-2 py-0.5 text-xs ${tab === t ? "bg-slate-900 text-white dark:bg-slate-200 dark:text-slate-900" : "text-slate-600 dark:text-slate-400 ring-1 ring-slate-200 dark:ring-slate-700 hover:bg-slate-50 dark:hover:bg-slate-800/60"}`}>
            {t === "list" ? "Transitions" : "Gantt and replay"}
          </button>
        ))}
        <Link href={`/runs/${runId}/timeline`} className="ml-auto text-xs text-blue-700 dark:text-blue-400 underline">full page</Link>
      </div>
      {tab === "list" ? <Timeline transitions={transitions} /> : <RunTimeline transitions={transitions} states={states} layout={layout} live={live} stacked runId={runId} />}
    </div>
  );
}

/** The finished cycle the outcome belongs to: its own number, and "previous" while a later one is under way. */
function lastRequestLabel(ended: number | undefined, current: number | undefined): string {
  if (ended === undefined) return "Last request";
  return current !== undefined && current !== ended ? `Previous request (#${ended})` : `Last request (#${ended})`;
}
