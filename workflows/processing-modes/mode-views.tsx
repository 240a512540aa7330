"use client";
// The processing-modes run's own views: the result, how it was routed and cached, what the mode
// did (passages, searches, code and its execution, thinking stages, the research plan and tasks),
// and the request's metrics.
import type { ModesContext } from "./types";
import { Markdown } from "@/components/ui/markdown";

function Pill({ children, tone = "slate" }: { children: React.ReactNode; tone?: "slate" | "emerald" | "amber" | "red" | "sky" | "violet" }) {
  const tones = { slate: "bg-slate-100 dark:bg-slate-800 text-slate-700 dark:text-slate-300", emerald: "bg-emerald-100 text-emerald-800", amber: "bg-amber-100 text-amber-900", red: "bg-red-100 text-red-800", sky: "bg-sky-100 text-sky-800", violet: "bg-violet-100 text-violet-800" };
  return <span className={`inline-block rounded px-1.5 py-0.5 text-xs ${tones[tone]}`}>{children}</span>;
}

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-[120px_1fr] gap-2 border-b border-slate-100 dark:border-slate-800 py-1.5 text-sm last:border-0">
      <dt className="break-words text-xs font-medium text-slate-600 dark:text-slate-400">{label}</dt>
      <dd className="min-w-0 text-slate-800 dark:text-slate-200">{children}</dd>
    </div>
  );
}

const cacheTone = { hit: "emerald", miss: "amber", disabled: "slate", bypassed: "slate" } as const;

export function ModeResultView({ c }: { c: ModesContext }) {
  if (!c.result) return <p className="text-sm text-slate-600 dark:text-slate-400">{c.error ? `No result: ${c.error.message}` : "No result yet."}</p>;
  return (
    <div className="space-y-2" data-testid="mode-result">
      <div className="flex flex-wrap items-center gap-1.5 text-xs text-slate-600 dark:text-slate-400">
        {c.routing && <Pill tone="violet">{c.routing.mode}</Pill>}
        <span>by {c.result.adapter}</span>
        {c.result.cached && <Pill tone="emerald">served from cache</Pill>}
      </div>
      {/* the answer itself is the run's result card at the top of the page: not shown twice */}
      <p className="text-sm text-slate-600 dark:text-slate-400">
        The answer is at the top of this page{c.result.citations.length > 0 ? "; the sources it cites:" : "."}
      </p>
      {c.result.citations.length > 0 && (
        <ol className="list-decimal space-y-0.5 pl-5 text-xs text-slate-600 dark:text-slate-400">
          {c.result.citations.map((x) => (
            <li key={x.id}>{x.url?.startsWith("/runs/") ? <a className="text-blue-700 dark:text-blue-400 underline" href={x.url}>{x.title}</a> : `${x.title}${x.url ? ` — ${x.url}` : ""}`}</li>
          ))}
        </ol>
      )}
    </div>
  );
}

export function ModeRouting({ c }: { c: ModesContext }) {
  const r = c.routing;
  const m = c.metrics;
  return (
    <dl data-testid="mode-routing">
      {r && (
        <Row label="Route">
          <Pill tone="violet">{r.mode}</Pill> <Pill>{r.level}</Pill> <Pill>{r.runtime}</Pill>{" "}
          <span className="text-xs text-slate-600 dark:text-slate-400">
            {r.routedBy} · confidence {r.confidence.toFixed(2)} · {r.adapter}
          </span>
          <p className="text-xs text-slate-600 dark:text-slate-400">{r.reason}</p>
        </Row>
      )}
      {c.cache && (
        <Row label="Cache">
          <Pill tone={cacheTone[c.cache.status]}>{c.cache.status}</Pill>{" "}
          <span className="font-mono text-[11px] text-slate-600 dark:text-slate-400" title="SHA-256 of mode:query">{c.cache.key.slice(0, 16)}…</span>
          {c.cache.expiresAt && <span className="text-xs text-slate-600 dark:text-slate-400"> · expires {new Date(c.cache.expiresAt).toISOString().slice(11, 19)} UTC</span>}
        </Row>
      )}
      {m && (
        <Row label="Metrics">
          <span className="text-xs text-slate-700 dark:text-slate-300">
            latency {m.latencyMs} ms · {m.llmCalls} model answer{m.llmCalls === 1 ? "" : "s"} used · cache {m.cacheHit ? "hit" : "no hit"} · {m.ok ? "ok" : `error ${m.errorCategory}`}
          </span>
        </Row>
      )}
      {c.error && (
        <Row label="Error">
          <span className="text-red-700 dark:text-red-400">
            {c.error.state}: {c.error.message} <Pill tone="red">{c.error.category}</Pill>
          </span>
        </Row>
      )}
    </dl>
  );
}

export function ModeWork({ c }: { c: ModesContext }) {
  return (
    <dl data-testid="mode-work">
      {c.embedding && (
        <Row label="Embedding">
          <span className="text-xs">{c.embedding.adapter}{c.embedding.dims ? ` · ${c.embedding.dims} dims` : ""} · terms: {c.embedding.terms.join(", ")}</span>
        </Row>
      )}
      {c.searches.length > 0 && (
        <Row label="Searches">
          <ul className="text-xs">
            {c.searches.map((s) => (
              <li key={s.query}>
                “{s.query}” → {s.results} result{s.results === 1 ? "" : "s"} <span className="text-slate-600 dark:text-slate-400">({s.via})</span>
              </li>
            ))}
          </ul>
        </Row>
      )}
      {c.passages.length > 0 && (
        <Row label="Passages">
          <ol className="list-decimal space-y-1 pl-4 text-xs">
            {c.passages.map((p) => (
              <li key={p.id}>
                <b>{p.title}</b> <span className="text-slate-600 dark:text-slate-400">({p.score.toFixed(2)}, {p.via})</span>
                <p className="line-clamp-2 text-slate-600 dark:text-slate-400">{p.text}</p>
              </li>
            ))}
          </ol>
        </Row>
      )}
      {c.code && (
        <Row label="Code">
          <p className="text-xs text-slate-600 dark:text-slate-400">{c.code.language} · from the {c.code.source}</p>
          <pre tabIndex={0} className="max-h-48 overflow-auto rounded bg-slate-900 p-2 text-[11px] text-slate-100">{c.code.code}</pre>
        </Row>
      )}
      {c.execution && (
        <Row label="Execution">
          <Pill tone={c.execution.ok ? "emerald" : "red"}>exit {c.execution.exitCode}</Pill>{" "}
          <span className="text-xs text-slate-600 dark:text-slate-400">
            {c.execution.durationMs} ms · {c.execution.engine}
            {c.execution.truncated ? " · output truncated" : ""}
          </span>
          {c.execution.error && <p className="text-xs text-red-700 dark:text-red-400">{c.execution.error.kind}: {c.execution.error.message}</p>}
          {c.execution.stdout && <pre tabIndex={0} className="mt-1 max-h-40 overflow-auto rounded bg-slate-50 dark:bg-slate-800/60 p-2 text-[11px]">{c.execution.stdout}</pre>}
          {c.execution.stderr && <pre tabIndex={0} className="mt-1 max-h-40 overflow-auto rounded bg-red-50 p-2 text-[11px] text-red-900">{c.execution.stderr}</pre>}
        </Row>
      )}
      {c.stages.map((s, i) => (
        <Row key={s.stage} label={`${i + 1}. ${s.stage.replace(/([a-z])([A-Z])/g, "$1 $2")}`}>
          <div className="text-xs">
            <Markdown text={s.text} />
          </div>
        </Row>
      ))}
      {c.workflow && (
        <Row label="Workflow">
          <div className="flex flex-wrap items-center gap-1">
            {c.workflow.steps.map((s) => (
              <Pill key={s} tone={c.workflow!.current === s ? "sky" : "slate"}>
                {s}
              </Pill>
            ))}
            <Pill tone={c.workflow.status === "completed" ? "emerald" : c.workflow.status === "failed" ? "red" : "sky"}>{c.workflow.status}</Pill>
            <span className="text-xs text-slate-600 dark:text-slate-400">attempt {c.workflow.attempts}</span>
          </div>
          {c.research?.plan && (
            <div className="mt-1 text-xs" data-testid="research-plan">
              <p className="font-medium">
                {c.research.plan.title} <span className="font-normal text-slate-600 dark:text-slate-400">· plan by {c.research.plan.adapter}</span>
              </p>
              <ul className="list-disc pl-5 text-slate-600 dark:text-slate-400">
                {c.research.plan.sections.map((x, i) => (
                  <li key={i}>
                    {x.heading}: {x.covers}
                  </li>
                ))}
              </ul>
            </div>
          )}
          {c.research && c.research.tasks.length > 0 && (
            <ol className="mt-1 list-decimal space-y-0.5 pl-5 text-xs text-slate-600 dark:text-slate-400" data-testid="research-tasks">
              {c.research.tasks.map((t, i) => (
                <li key={i} className="break-words">
                  <Pill tone={t.priority === "high" ? "violet" : "slate"}>{t.priority}</Pill> “{t.query}” — {t.goal}
                  {t.via && (
                    <span>
                      {" "}
                      · {t.results} result(s) via {t.via}
                      {t.sources.length > 0 ? ` (${t.sources.join(", ")})` : ""}
                    </span>
                  )}
                  {t.summary === null && i === c.research!.index && c.workflow!.status === "running" && <span> · in progress</span>}
                </li>
              ))}
            </ol>
          )}
          {c.workflow.childRunId && (
            <a className="text-xs text-blue-700 dark:text-blue-400 underline" href={`/runs/${c.workflow.childRunId}`} data-testid="child-run">
              deep-research run {c.workflow.childRunId.slice(0, 8)} →
            </a>
          )}
          {c.workflow.errors.map((e) => (
            <p key={e.attempt} className="text-xs text-amber-800 dark:text-amber-300">
              attempt {e.attempt}: {e.category} — {e.message}
            </p>
          ))}
        </Row>
      )}
    </dl>
  );
}
