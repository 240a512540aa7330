// /runs/{a}/compare/{b} (guide 19 §2): two runs on one diagram, the first place they went apart,
// and their aligned steps with text and JSON diffs of outputs and decisions, tokens and time.
import Link from "@/components/ui/link";
import { notFound } from "next/navigation";
import { getRun, runTransitions } from "@/lib/api/runs";
import { compareRuns, type CompareSide, type CompareStep, type Comparison } from "@/lib/change/compare";
import { layoutOf, runDefinition } from "@/lib/change/definitions";
import { visitsOf } from "@/lib/change/visits";
import { isEngineError } from "@/lib/engine/errors";
import { edgeIds } from "@/lib/graph/status";
import { formatDuration, shortId } from "@/lib/format";
import { runName } from "@/lib/machines/run-name";
import { getRuntime } from "@/lib/runtime";
import type { DiagramOverlay } from "@/components/diagram/workflow-diagram";
import { CompareDiagram } from "@/components/change/compare-diagram";
import { ValueDiff } from "@/components/change/value-diff";
import { StatusBadge } from "@/components/ui/status-badge";
import { requireViewer } from "@/app/session";

export const dynamic = "force-dynamic";

export const metadata = { title: "Compare runs · Switchyard" };

const REASON: Record<string, string> = { path: "the paths part", event: "they left by different events", output: "the outputs differ", decision: "the decisions differ", input: "the inputs differ" };

const signed = (n: number, fmt: (x: number) => string = String) => (n === 0 ? "±0" : `${n > 0 ? "+" : "−"}${fmt(Math.abs(n))}`);

function Side({ side, tone }: { side: CompareSide | null; tone: "a" | "b" }) {
  if (!side) return <div className="text-xs italic text-slate-600 dark:text-slate-400">not on this path</div>;
  return (
    <div className="min-w-0 text-xs text-slate-600 dark:text-slate-300">
      <span className={`mr-1 inline-block rounded px-1 font-semibold text-white ${tone === "a" ? "bg-[var(--path-a)]" : "bg-[var(--path-b)] text-slate-950"}`}>{tone.toUpperCase()}</span>
      #{side.seq} · {side.event ? <span className="font-mono">{side.event}</span> : "its last state"} · {side.tokens} tokens · {formatDuration(side.ms)}
      {side.decision && (
        <span className="ml-1">
          · <span className="font-medium">{side.decision.decision}</span>
          {side.decision.reviewer ? ` by ${side.decision.reviewer}` : ""}
          {side.decision.replayed ? " (replayed)" : ""}
        </span>
      )}
    </div>
  );
}

function Step({ s, first }: { s: CompareStep; first: Comparison["firstDivergence"] }) {
  const diverged = first?.key === s.key;
  const differs = !s.same;
  const dTokens = (s.b?.tokens ?? 0) - (s.a?.tokens ?? 0);
  const dMs = (s.b?.ms ?? 0) - (s.a?.ms ?? 0);
  const hasDetail = s.a?.output !== undefined || s.b?.output !== undefined || s.a?.decision || s.b?.decision;
  return (
    <li className={`rounded-lg border bg-white p-3 dark:bg-slate-900 ${diverged ? "border-red-400 ring-2 ring-red-300 dark:ring-red-800" : "border-slate-200 dark:border-slate-700"}`} data-step={s.key} data-same={s.same ? "" : undefined}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-mono text-sm font-semibold">{s.state.split(".").at(-1)}</span>
        <span className="font-mono text-xs text-slate-600 dark:text-slate-400">#{s.key.slice(s.key.lastIndexOf("#") + 1)}</span>
        {differs ? <span className="rounded-full bg-amber-100 px-2 py-0.5 text-[11px] font-medium text-amber-900 dark:bg-amber-900 dark:text-amber-100">differs</span> : <span className="rounded-full bg-slate-100 px-2 py-0.5 text-[11px] text-slate-600 dark:bg-slate-800 dark:text-slate-300">same</span>}
        {diverged && <span className="rounded-full bg-red-600 px-2 py-0.5 text-[11px] font-semibold text-white" data-testid="first-divergence-step">first divergence: {first!.reason}</span>}
        <span className="ml-auto text-[11px] text-slate-600 dark:text-slate-400">
          tokens {signed(dTokens)} · time {signed(dMs, formatDuration)}
        </span>
      </div>
      <div className="mt-1 grid gap-1 md:grid-cols-2 md:gap-3">
        <Side side={s.a} tone="a" />
        <Side side={s.b} tone="b" />
      </div>
      {hasDetail && (
        <details className="mt-2" open={diverged}>
          <summary className="cursor-pointer text-xs text-blue-700 underline dark:text-blue-400">{differs ? "what differs" : "output and decision"}</summary>
          <div className="mt-2 grid gap-3">
            <ValueDiff label="Output (A → B)" a={s.a?.output} b={s.b?.output} />
            {(s.a?.decision || s.b?.decision) && (
              <ValueDiff
                label="Decision (A → B)"
                a={s.a?.decision ? { decision: s.a.decision.decision, feedback: s.a.decision.feedback, edited: s.a.decision.edited } : undefined}
                b={s.b?.decision ? { decision: s.b.decision.decision, feedback: s.b.decision.feedback, edited: s.b.decision.edited } : undefined}
              />
            )}
            {(s.a?.decision?.shown !== undefined || s.b?.decision?.shown !== undefined) && <ValueDiff label="What the review showed (A → B)" a={s.a?.decision?.shown} b={s.b?.decision?.shown} />}
          </div>
        </details>
      )}
    </li>
  );
}

export default async function ComparePage({ params, searchParams }: { params: Promise<{ id: string; other: string }>; searchParams: Promise<{ on?: string }> }) {
  await requireViewer();
  const { id, other } = await params;
  const { on } = await searchParams;
  if (![id, other].every((x) => /^[A-Za-z0-9_-]{1,200}$/.test(x))) notFound();
  const rt = await getRuntime();
  let c: Comparison;
  let a, b;
  try {
    [a, b] = await Promise.all([getRun(rt, id), getRun(rt, other)]);
    c = await compareRuns(rt, id, other);
  } catch (e) {
    if (isEngineError(e) && e.status === 404) notFound();
    if (isEngineError(e) && e.status === 422)
      return (
        <div className="mx-auto max-w-2xl rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100" data-testid="compare-refused">
          {e.message}
        </div>
      );
    throw e;
  }
  const [defA, defB] = await Promise.all([runDefinition(rt, a), runDefinition(rt, b)]);
  const drawn = on === "b" && defB ? defB : (defA ?? defB);
  if (!drawn) notFound();
  const layout = await layoutOf(drawn);
  const [ta, tb] = await Promise.all([runTransitions(rt, id, 0, 10_000, true), runTransitions(rt, other, 0, 10_000, true)]);
  // the diagram: each run's taken edges in its colour, states tagged with who visited them
  const edges: NonNullable<DiagramOverlay["edges"]> = {};
  for (const t of ta) for (const e of edgeIds(t)) edges[e] = "a";
  for (const t of tb) for (const e of edgeIds(t)) edges[e] = edges[e] === "a" || edges[e] === "both" ? "both" : "b";
  const nodes: NonNullable<DiagramOverlay["nodes"]> = {};
  const visits = (ts: typeof ta) => visitsOf(ts.map((t) => ({ seq: t.seq, from: t.from ? t.from.split(",") : [], to: t.to ? t.to.split(",") : [], at: Date.parse(t.at), event: t.event, payload: t.payload }))).filter((v) => v.leaf);
  const count = (vs: ReturnType<typeof visits>) => vs.reduce((m, v) => m.set(v.state, (m.get(v.state) ?? 0) + 1), new Map<string, number>());
  const [va, vb] = [count(visits(ta)), count(visits(tb))];
  for (const [s, n] of va) (nodes[s] ??= []).push({ label: n > 1 ? `A×${n}` : "A", tone: "a", title: `run A visited it ${n} time${n > 1 ? "s" : ""}` });
  for (const [s, n] of vb) (nodes[s] ??= []).push({ label: n > 1 ? `B×${n}` : "B", tone: "b", title: `run B visited it ${n} time${n > 1 ? "s" : ""}` });
  const first = c.firstDivergence;
  if (first) (nodes[first.state] ??= []).unshift({ label: `≠ ${first.reason}`, tone: "bad", title: `first divergence at ${first.key}: ${REASON[first.reason]}` });
  const notDrawn = [...new Set(c.steps.map((s) => s.state))].filter((s) => !layout.graph.states.some((x) => x.id === s));
  const version = (v: number | null) => (v === null ? "" : ` v${v}`);
  const nameA = runName(defA, a) ?? shortId(a.id);
  const nameB = runName(defB, b) ?? shortId(b.id);
  const how = b.replayOf === a.id ? (b.replay?.eval ? "an evaluation case of A" : "a replay of A") : b.forkOf === a.id ? `a fork of A at #${b.forkSeq}` : a.replayOf === b.id ? "A replays B" : a.forkOf === b.id ? "A is a fork of B" : null;
  const tokens = signed(c.totals.b.tokens - c.totals.a.tokens);
  const time = signed(c.totals.b.ms - c.totals.a.ms, formatDuration);
  return (
    <div className="space-y-4">
      <div>
        <h1 className="text-xl font-semibold tracking-tight">Compare runs</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          {drawn.title}
          {how ? ` · B is ${how}` : ""} · steps line up on the state and its visit (“DRAFT #2” is the second time in DRAFT)
        </p>
      </div>
      <div className="grid gap-3 md:grid-cols-2">
        {([["A", a, nameA, c.a.workflowVersion, c.totals.a], ["B", b, nameB, c.b.workflowVersion, c.totals.b]] as const).map(([tag, run, name, v, totals]) => (
          <div key={tag} className="rounded-xl border border-slate-200 bg-white p-3 dark:border-slate-700 dark:bg-slate-900" data-testid={`run-${tag.toLowerCase()}`}>
            <div className="flex items-center gap-2">
              <span className={`rounded px-1.5 text-xs font-bold ${tag === "A" ? "bg-[var(--path-a)] text-white" : "bg-[var(--path-b)] text-slate-950"}`}>{tag}</span>
              <Link href={`/runs/${run.id}`} className="min-w-0 truncate text-sm font-medium text-blue-700 underline dark:text-blue-400" title={name}>
                {name}
              </Link>
              <StatusBadge status={run.status} />
            </div>
            <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
              <span className="font-mono">{shortId(run.id)}</span>
              {version(v)} · {totals.transitions} transitions · {totals.tokens} tokens · {formatDuration(totals.ms)}
            </p>
          </div>
        ))}
      </div>
      <div className="rounded-xl border border-slate-200 bg-white p-3 text-sm dark:border-slate-700 dark:bg-slate-900" data-testid="compare-summary">
        {first ? (
          <p>
            <span className="font-semibold text-red-700 dark:text-red-400">First divergence</span> at <span className="font-mono">{first.key}</span>: {REASON[first.reason]}
            {first.a.seq !== null ? ` (A #${first.a.seq}` : " (A —"}
            {first.b.seq !== null ? `, B #${first.b.seq})` : ", B —)"}.
          </p>
        ) : (
          <p className="font-medium text-emerald-700 dark:text-emerald-400">The runs went the same way: every step has the same input, output, decision and event.</p>
        )}
        <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          B against A: tokens {tokens} · time {time} · {c.steps.filter((s) => !s.same).length} of {c.steps.length} steps differ
          {c.a.workflowVersion !== c.b.workflowVersion && defB && defA && (
            <>
              {" · drawn on "}
              <Link className="text-blue-700 underline dark:text-blue-400" href={`/runs/${id}/compare/${other}${on === "b" ? "" : "?on=b"}`}>
                {on === "b" ? `A's version${version(c.a.workflowVersion)}` : `B's version${version(c.b.workflowVersion)}`} instead
              </Link>
            </>
          )}
        </p>
        {notDrawn.length > 0 && <p className="mt-1 text-xs text-amber-700 dark:text-amber-400">Not on this diagram (states of the other version): {notDrawn.join(", ")}</p>}
      </div>
      <CompareDiagram layout={layout} overlay={{ nodes, edges, outline: first?.state ?? null }} />
      <section>
        <h2 className="mb-2 text-sm font-semibold">Steps</h2>
        <ol className="space-y-2" data-testid="compare-steps">
          {c.steps.map((s) => (
            <Step key={s.key} s={s} first={first} />
          ))}
        </ol>
      </section>
    </div>
  );
}
