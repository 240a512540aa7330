"use client";
// A stage machine run (docs/guide/15-conversation-and-your-own-workflows.md: the conversation, or a user-defined workflow): where it is, the
// tools its stage allows, where it may go, a chat box scored by the stage detector, the scores
// of the last message, and every attempted move with its verdict.
import { Allowed } from "@/components/auth/role";
import { useState, useTransition } from "react";
import { sendEventAction, type ActionResult } from "@/app/runs/[id]/actions";
import { formatTime } from "@/lib/format";
import type { FlowContext } from "@/lib/flows/rules";
import type { FlowConfig } from "@/lib/flows/types";
import { activeLeaves, allowedTools, validNext } from "@/lib/flows/rules";

function useSend(runId: string) {
  const [pending, start] = useTransition();
  const [result, setResult] = useState<ActionResult | null>(null);
  const send = (event: Record<string, unknown>, after?: () => void) =>
    start(async () => {
      const r = await sendEventAction({ runId, event: event as { type: string } });
      setResult(r);
      if (r.ok) after?.();
    });
  return { pending, result, send };
}

/** `accepted`: the events the run takes now (a stage with a step takes no message, move or tool call: the step moves the run) */
function StagePanelInner({ runId, flow, context, terminal, accepted }: { runId: string; flow: FlowConfig; context: FlowContext; terminal: boolean; accepted: string[] }) {
  const { pending, result, send } = useSend(runId);
  const [text, setText] = useState("");
  const [confidence, setConfidence] = useState("1");
  const stage = activeLeaves(flow, context.active);
  const tools = allowedTools(flow, context.active);
  // moves from the stages a client moves (a stage with a step routes itself)
  const next = validNext(flow, context.active.filter((s) => !Object.hasOwn(flow.steps ?? {}, s)));
  const last = context.decisions.at(-1);
  const lastRefusal = last && !last.accepted ? last : null;
  const refused = result && !result.ok ? result.fieldErrors?.text ?? result.error : null;
  return (
    <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4" data-testid="stage-panel">
      <div className="text-[11px] font-medium uppercase tracking-wide text-slate-600 dark:text-slate-400">Stage</div>
      <div className="mt-1 font-mono text-lg font-semibold" data-testid="stage">{stage.join(" + ") || "—"}</div>
      {!terminal && !accepted.some((t) => t === "MESSAGE" || t === "TRANSITION" || t === "TOOL") && (
        <p className="mt-2 text-xs text-slate-600 dark:text-slate-400" data-testid="stage-by-step">
          {flow.steps ? "Its step moves the run on: there is nothing to send here." : "Nothing to send here now."}
        </p>
      )}
      {accepted.includes("TOOL") && (
      <>
      <div className="mt-3 text-xs font-medium text-slate-600 dark:text-slate-400">Tools allowed here</div>
      <div className="mt-1 flex flex-wrap gap-1.5" data-testid="stage-tools">
        {tools.length === 0 && <span className="text-xs text-slate-600 dark:text-slate-400">none</span>}
        {tools.map((t) => (
          <button key={t} disabled={terminal || pending} onClick={() => send({ type: "TOOL", name: t })} title="record a call of this tool" className="rounded-md bg-slate-100 dark:bg-slate-800 px-2 py-0.5 font-mono text-xs text-slate-700 dark:text-slate-300 ring-1 ring-slate-200 dark:ring-slate-700 hover:bg-slate-200 disabled:opacity-50">
            {t}
          </button>
        ))}
        <span className="self-center text-[11px] text-slate-600 dark:text-slate-400">{context.toolCalls} call(s) so far</span>
      </div>
      </>
      )}

      {!terminal && accepted.includes("TRANSITION") && (
        <>
          <div className="mt-3 flex items-center justify-between text-xs font-medium text-slate-600 dark:text-slate-400">
            <span>Move to</span>
            <label className="flex items-center gap-1 font-normal text-slate-600 dark:text-slate-400">
              confidence
              <input type="number" min={0} max={1} step={0.05} value={confidence} onChange={(e) => setConfidence(e.target.value)} className="w-16 rounded border border-slate-300 dark:border-slate-600 px-1 py-0.5 text-xs" aria-label="confidence" />
            </label>
          </div>
          {lastRefusal && (
            <p className="mt-1 rounded-md border border-red-200 bg-red-50 px-2 py-1 text-xs text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200" data-testid="last-refusal">
              ✕ {lastRefusal.from.join(" + ")} → {lastRefusal.to} refused: {lastRefusal.reason}
            </p>
          )}
          <div className="mt-1 flex flex-wrap gap-1.5" data-testid="next-stages">
            {next.length === 0 && <span className="text-xs text-slate-600 dark:text-slate-400">no way out: this stage is terminal</span>}
            {next.map((s) => (
              <button key={s} disabled={pending} onClick={() => send({ type: "TRANSITION", to: s, confidence: Number(confidence) })} className="rounded-md bg-blue-50 px-2 py-0.5 font-mono text-xs text-blue-800 ring-1 ring-blue-200 hover:bg-blue-100 disabled:opacity-50 dark:bg-blue-950 dark:text-blue-200 dark:ring-blue-800 dark:hover:bg-blue-900">
                → {s}
              </button>
            ))}
          </div>
        </>
      )}
      {!terminal && accepted.includes("MESSAGE") && (
        <>
          <form
            className="mt-3"
            onSubmit={(e) => {
              e.preventDefault();
              send({ type: "MESSAGE", text }, () => setText(""));
            }}
          >
            <label htmlFor="flow-message" className="text-xs font-medium text-slate-600 dark:text-slate-400">Message</label>
            <textarea id="flow-message" rows={2} value={text} onChange={(e) => setText(e.target.value)} placeholder="e.g. “let me read the auth module first”: the stage detector scores it" className="mt-1 w-full rounded-md border border-slate-300 dark:border-slate-600 px-2 py-1.5 text-sm" />
            <button disabled={pending} className="rounded-md bg-blue-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-700 disabled:opacity-50">
              {pending ? "Sending…" : "Send message"}
            </button>
          </form>
        </>
      )}
      {refused && <p className="mt-1 text-xs text-red-600 dark:text-red-400" role="alert">{refused}</p>}
      <Detection context={context} threshold={flow.detection_threshold ?? 0.3} />
    </div>
  );
}

function Detection({ context, threshold }: { context: FlowContext; threshold: number }) {
  const d = context.lastDetection;
  if (!d) return null;
  return (
    <div className="mt-4 border-t border-slate-100 dark:border-slate-800 pt-3" data-testid="detection">
      <div className="text-xs font-medium text-slate-600 dark:text-slate-400">Last message</div>
      <p className="mt-0.5 line-clamp-3 text-sm italic text-slate-700 dark:text-slate-300">“{d.text}”</p>
      {d.scores.length === 0 ? (
        <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">No stage keyword found: the stage stays.</p>
      ) : (
        <>
          <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            Detected <span className="font-mono font-semibold">{d.stage}</span> with confidence <strong>{d.confidence.toFixed(2)}</strong> (threshold {threshold})
            {(() => {
              const share = d.scores.find((x) => x.stage === d.stage)?.score ?? d.confidence;
              return share > d.confidence ? `: ${Math.round(share * 100)}% of the keyword hits, lowered because it rests on one keyword` : `: ${Math.round(share * 100)}% of the keyword hits`;
            })()}
          </p>
          <ul className="mt-1 space-y-1">
            {d.scores.map((s) => (
              <li key={s.stage} className="text-[11px]">
                <div className="flex justify-between">
                  <span className="font-mono">{s.stage}</span>
                  <span className="text-slate-600 dark:text-slate-400">{s.hits.map((h) => `“${h}”`).join(", ")} · {Math.round(s.score * 100)}% of hits</span>
                </div>
                <div className="h-1.5 rounded bg-slate-100 dark:bg-slate-800">
                  <div className={`h-1.5 rounded ${s.stage === d.stage ? "bg-blue-600" : "bg-slate-400"}`} style={{ width: `${Math.round(s.score * 100)}%` }} />
                </div>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/** Every attempted move, newest first: accepted ones and refusals with their reason. */
export function StageHistory({ context }: { context: FlowContext }) {
  const moves = [...context.decisions].reverse();
  const tools = [...context.tools].reverse();
  return (
    <div className="grid gap-4 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
      <div>
        <h3 className="mb-1 text-xs font-semibold text-slate-600 dark:text-slate-400">Moves ({moves.length})</h3>
        {moves.length === 0 && <p className="text-xs text-slate-600 dark:text-slate-400">No move attempted yet.</p>}
        <ol className="space-y-1" data-testid="stage-decisions">
          {moves.map((d, i) => (
            <li key={i} data-accepted={d.accepted} className={`rounded-md border px-2 py-1 text-xs ${d.accepted ? "border-emerald-200 bg-emerald-50/50 dark:border-emerald-900 dark:bg-emerald-950/40" : "border-red-200 bg-red-50/60 dark:border-red-900 dark:bg-red-950/40"}`}>
              <div className="flex flex-wrap items-center gap-x-2">
                <span className={d.accepted ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400"}>{d.accepted ? "✓ moved" : "✕ refused"}</span>
                <span className="font-mono">{d.from.join(" + ")} → {d.to}</span>
                <span className="text-slate-600 dark:text-slate-400">by {d.by} · confidence {d.confidence} · {formatTime(new Date(d.at).toISOString())}</span>
              </div>
              {!d.accepted && <div className="text-red-800">{d.reason}</div>}
            </li>
          ))}
        </ol>
      </div>
      <div>
        <h3 className="mb-1 text-xs font-semibold text-slate-600 dark:text-slate-400">Tool calls ({context.toolCalls} allowed)</h3>
        {tools.length === 0 && <p className="text-xs text-slate-600 dark:text-slate-400">No tool call recorded.</p>}
        <ul className="space-y-1 text-xs" data-testid="tool-calls">
          {tools.map((t, i) => (
            <li key={i} className={t.allowed ? "text-slate-700 dark:text-slate-300" : "text-red-700 dark:text-red-400"}>
              <span className="font-mono">{t.name}</span> in {t.stage} {t.allowed ? "✓" : `✕ ${t.reason}`}
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}

/** offered to operators and above; others see why not */
export function StagePanel(props: Parameters<typeof StagePanelInner>[0]) {
  return (
    <Allowed need="operator">
      <StagePanelInner {...props} />
    </Allowed>
  );
}
