"use client";
// The domain-agent run's own views: the answer, how the agent got there (route, domains and
// expansions, plan, findings, evaluation), the entries it logged, and the observer's decision.
import type { AgentContext, Finding } from "./types";
import { Markdown } from "@/components/ui/markdown";

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-[120px_1fr] gap-2 border-b border-slate-100 dark:border-slate-800 py-1.5 text-sm last:border-0">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">{label}</dt>
      <dd className="text-slate-800 dark:text-slate-200">{children}</dd>
    </div>
  );
}

function Pill({ children, tone = "slate" }: { children: React.ReactNode; tone?: "slate" | "emerald" | "amber" | "red" | "sky" }) {
  const tones = { slate: "bg-slate-100 dark:bg-slate-800 text-slate-700 dark:text-slate-300", emerald: "bg-emerald-100 text-emerald-800", amber: "bg-amber-100 text-amber-900", red: "bg-red-100 text-red-800", sky: "bg-sky-100 text-sky-800" };
  return <span className={`inline-block rounded px-1.5 py-0.5 text-xs ${tones[tone]}`}>{children}</span>;
}

function Findings({ findings }: { findings: Finding[] }) {
  if (findings.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No findings.</p>;
  return (
    <ul className="space-y-1 text-sm">
      {findings.map((f, i) => (
        <li key={i} className="flex gap-2">
          <Pill tone={f.concern ? "amber" : "slate"}>{f.domain}</Pill>
          <span className={f.concern ? "text-amber-900" : "text-slate-700 dark:text-slate-300"}>{f.statement}</span>
        </li>
      ))}
    </ul>
  );
}

export function AgentAnswer({ c }: { c: AgentContext }) {
  if (!c.answer) return <p className="text-sm text-slate-600 dark:text-slate-400">No answer yet{c.inputType === "LOG" ? ": this input was a log, not a question." : "."}</p>;
  const e = c.evaluation;
  return (
    <div className="space-y-2" data-testid="agent-answer">
      <div className="flex flex-wrap items-center gap-1.5 text-xs text-slate-600 dark:text-slate-400">
        <span>written by {c.answer.adapter}</span>
        {/* the offline engine checks the data the answer rests on, not its quality: it says so, with no score */}
        {e && e.adapter === "offline engine" ? (
          <Pill tone={e.verdict === "PASS" ? "emerald" : "amber"}>{e.verdict === "PASS" ? "data checks passed (offline, no model read it)" : "data checks failed (offline)"}</Pill>
        ) : (
          e && <Pill tone={e.verdict === "PASS" ? "emerald" : "amber"}>evaluation {e.verdict} ({e.score.toFixed(2)})</Pill>
        )}
        {c.partial && <Pill tone="amber">partial</Pill>}
        {c.retryCount > 0 && <Pill>{c.retryCount} retr{c.retryCount === 1 ? "y" : "ies"}</Pill>}
      </div>
      <div tabIndex={0} className="max-h-[560px] overflow-auto rounded-lg border border-slate-200 dark:border-slate-700 p-3">
        <Markdown text={c.answer.text} />
      </div>
      {e && e.verdict === "FAIL" && <p className="text-xs text-amber-800 dark:text-amber-300">Evaluation: {e.reasons.join("; ")}</p>}
    </div>
  );
}

export function AgentReasoning({ c }: { c: AgentContext }) {
  return (
    <dl data-testid="agent-reasoning">
      {c.route && (
        <Row label="Route">
          <Pill tone="sky">{c.route.inputType}</Pill> <span className="text-xs text-slate-600 dark:text-slate-400">confidence {c.route.confidence.toFixed(2)} · {c.route.adapter}</span>
          <p className="text-xs text-slate-600 dark:text-slate-400">{c.route.reason}</p>
        </Row>
      )}
      <Row label="Domains">
        <div className="flex flex-wrap gap-1">
          {c.domains.map((d) => (
            <Pill key={d}>{d}</Pill>
          ))}
          {c.domains.length === 0 && <span className="text-xs text-slate-600 dark:text-slate-400">none</span>}
        </div>
        {c.expansions.map((x, i) => (
          <p key={i} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            Expanded from {x.from}: <b>{x.domains.join(", ")}</b> — {x.reason}
          </p>
        ))}
      </Row>
      {c.plan && (
        <Row label="Plan">
          <Pill tone="sky">{c.plan.decision}</Pill> <span className="text-xs text-slate-600 dark:text-slate-400">round {c.plan.round} · {c.plan.window.from} → {c.plan.window.to} ({c.plan.window.label}) · {c.plan.adapter}</span>
          <p className="text-xs text-slate-600 dark:text-slate-400">{c.plan.reason}</p>
        </Row>
      )}
      {c.analysis && (
        <Row label="Analysis">
          <Pill tone={c.analysis.verdict === "SUFFICIENT" ? "emerald" : "amber"}>{c.analysis.verdict}</Pill> <span className="text-xs text-slate-600 dark:text-slate-400">{c.analysis.reason}</span>
          {c.analysis.gap && <p className="text-xs text-amber-800 dark:text-amber-300">Gap: {c.analysis.gap.description}</p>}
          <div className="mt-1.5">
            <Findings findings={c.analysis.findings} />
          </div>
          <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">{c.retrieved.length} entries retrieved · {c.replans} re-plan(s)</p>
        </Row>
      )}
      {c.clarification && (
        <Row label="Clarification">
          <p>{c.clarification.question}</p>
          <p className="text-xs text-slate-600 dark:text-slate-400">{c.clarification.declined ? "Declined by the person." : c.clarification.answer ? `Answered: “${c.clarification.answer}”` : "Waiting for the answer."}</p>
        </Row>
      )}
      {c.error && (
        <Row label="Error">
          <span className="text-red-700 dark:text-red-400">
            {c.error.state}: {c.error.message}
          </span>
        </Row>
      )}
    </dl>
  );
}

export function AgentEntries({ c }: { c: AgentContext }) {
  const significant = new Map((c.stored?.significant ?? []).map((s) => [s.entryId, s.reason]));
  if (c.parsed.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">{c.inputType === "QUERY" ? "This input was a question: nothing to log." : "No entries parsed yet."}</p>;
  return (
    <table className="w-full text-sm" data-testid="agent-entries">
      <thead>
        <tr className="text-left text-xs uppercase tracking-wide text-slate-600 dark:text-slate-400">
          <th className="py-1 pr-2">Day</th>
          <th className="py-1 pr-2">Entry</th>
          <th className="py-1 pr-2">Metrics</th>
          <th className="py-1">Domains</th>
        </tr>
      </thead>
      <tbody>
        {c.parsed.map((e, i) => {
          const id = c.stored?.ids[i];
          const flag = id ? significant.get(id) : undefined;
          return (
            <tr key={i} className="border-t border-slate-100 dark:border-slate-800 align-top">
              <td className="py-1.5 pr-2 font-mono text-xs text-slate-600 dark:text-slate-400">{e.day}</td>
              <td className="py-1.5 pr-2">
                {e.text}
                {flag && <p className="text-xs text-amber-800 dark:text-amber-300">⚑ significant: {flag}</p>}
              </td>
              <td className="py-1.5 pr-2">
                <div className="flex flex-wrap gap-1">
                  {e.metrics.map((m, j) => (
                    <Pill key={j}>
                      {m.name.replace(/_/g, " ")} {m.value} {m.unit}
                    </Pill>
                  ))}
                </div>
              </td>
              <td className="py-1.5 text-xs text-slate-600 dark:text-slate-400">{e.domains.join(", ")}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function AgentObserver({ c }: { c: AgentContext }) {
  const o = c.observation;
  if (!o) return <p className="text-sm text-slate-600 dark:text-slate-400">The observer runs at the end of the run.</p>;
  return (
    <dl data-testid="agent-observer">
      <Row label="Triggers">{o.triggers.length ? o.triggers.map((t) => <Pill key={t}>{t}</Pill>) : <span className="text-xs text-slate-600 dark:text-slate-400">none</span>}</Row>
      <Row label="Decision">
        <Pill tone={o.decision === "update" ? "emerald" : "slate"}>{o.decision}</Pill> <span className="text-xs text-slate-600 dark:text-slate-400">{o.adapter}</span>
        <p className="text-xs text-slate-600 dark:text-slate-400">{o.reason}</p>
      </Row>
      {o.changes.length > 0 && (
        <Row label="Changes">
          <ul className="text-xs">
            {o.changes.map((x) => (
              <li key={x.key}>
                <code>{x.key}</code>: {x.from ?? "∅"} → <b>{x.to}</b>
              </li>
            ))}
          </ul>
        </Row>
      )}
      <Row label="Global context">
        <a className="text-xs text-blue-700 dark:text-blue-400 underline" href="/log">
          See and edit it on the Log page →
        </a>
      </Row>
    </dl>
  );
}
