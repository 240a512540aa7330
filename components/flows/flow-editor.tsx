"use client";
// The workflow editor: Mermaid, YAML or JSON on the left, checked as you type (the same
// validation the server runs), the machine it makes drawn on the right.
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, useTransition } from "react";
import { stringify } from "yaml";
import { saveWorkflowAction, type SaveResult } from "@/app/workflows/new/actions";
import { WorkflowDiagram } from "@/components/diagram/workflow-diagram";
import { deriveGraph } from "@/lib/graph/derive";
import { layoutGraph, type Layout } from "@/lib/graph/layout";
import { flowMachine } from "@/lib/flows/machine";
import type { FlowIssue } from "@/lib/flows/types";
import { checkFlowSource, type FlowFormat } from "@/lib/flows/validate";

const EXAMPLES: Record<FlowFormat, string> = {
  mermaid: `---
title: Support ticket
---
stateDiagram-v2
    [*] --> NEW
    NEW --> TRIAGE: assigned
    TRIAGE --> WORKING: accepted
    TRIAGE --> CLOSED: duplicate
    WORKING --> WAITING_CUSTOMER: question asked
    WAITING_CUSTOMER --> WORKING: customer replied
    WORKING --> RESOLVED: fix shipped
    RESOLVED --> CLOSED
    CLOSED --> [*]
`,
  yaml: `id: publishing
title: Publishing
stages: [DRAFT, REVIEW, APPROVED, PUBLISHED]
initial_stage: DRAFT
transitions:
  DRAFT: [REVIEW]
  REVIEW: [DRAFT, APPROVED]
  APPROVED: [PUBLISHED]
  PUBLISHED: []
stage_tools:
  DRAFT: [write, edit]
  REVIEW: [read, comment]
  APPROVED: [read]
  PUBLISHED: [read]
keywords:
  REVIEW: [review, proofread]
  APPROVED: [approve, lgtm]
  PUBLISHED: [publish, ship]
cooldown_seconds: 1
backward_threshold: 0.9
validators:
  - { type: min_tool_calls, target: PUBLISHED, min: 1 }
`,
  json: JSON.stringify(
    {
      id: "code-review",
      title: "Code review",
      stages: ["OPEN", "REVIEWING", "CHANGES_REQUESTED", "APPROVED", "MERGED"],
      initial_stage: "OPEN",
      transitions: { OPEN: ["REVIEWING"], REVIEWING: ["CHANGES_REQUESTED", "APPROVED"], CHANGES_REQUESTED: ["REVIEWING"], APPROVED: ["MERGED"], MERGED: [] },
      stage_tools: { REVIEWING: ["read", "comment"], CHANGES_REQUESTED: ["edit", "push"], APPROVED: ["merge"] },
      validators: [{ type: "require_visited", target: "MERGED", stage: "REVIEWING" }],
    },
    null,
    2,
  ),
};

type Check = { issues: FlowIssue[]; layout: Layout | null; stages: number; transitions: number; warnings?: FlowIssue[] };

export function FlowEditor({ from }: { from: string | null }) {
  const router = useRouter();
  const [format, setFormat] = useState<FlowFormat>("mermaid");
  const [source, setSource] = useState(EXAMPLES.mermaid);
  const [id, setId] = useState("support-ticket");
  const [check, setCheck] = useState<Check>({ issues: [], layout: null, stages: 0, transitions: 0 });
  const [saved, setSaved] = useState<SaveResult | null>(null);
  const [pending, start] = useTransition();
  const gutter = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!from) return;
    fetch(`/api/workflows/${from}/export?format=json`)
      .then((r) => (r.ok ? r.json() : null))
      .then((flow) => {
        if (!flow) return;
        setFormat("yaml");
        setSource(stringify(flow));
      })
      .catch(() => {});
  }, [from]);

  useEffect(() => {
    let cancelled = false;
    const t = setTimeout(() => {
      const r = checkFlowSource(format, source, format === "mermaid" ? { id } : {});
      if (!r.ok) {
        setCheck((c) => ({ ...c, issues: r.issues }));
        return;
      }
      let machine;
      try {
        machine = flowMachine(r.config);
      } catch (e) {
        setCheck((c) => ({ ...c, issues: [{ message: (e as Error).message }] }));
        return;
      }
      const graph = deriveGraph(machine);
      const transitions = Object.values(r.config.transitions).reduce((n, l) => n + l.length, 0);
      layoutGraph(graph)
        .then((layout) => !cancelled && setCheck({ issues: [], layout, stages: r.config.stages.length, transitions, warnings: r.warnings }))
        .catch((e) => !cancelled && setCheck((c) => ({ ...c, issues: [{ message: `cannot draw it: ${(e as Error).message}` }] })));
    }, 250);
    return () => {
      cancelled = true;
      clearTimeout(t);
    };
  }, [format, source, id]);

  const lines = source.split("\n").length;
  const bad = new Set(check.issues.map((i) => i.line).filter(Boolean));
  const save = () =>
    start(async () => {
      const body = format === "mermaid" ? { mermaid: source, id } : format === "yaml" ? { yaml: source } : { json: source };
      const r = await saveWorkflowAction(body);
      setSaved(r);
      if (r.ok) router.push(`/workflows/${r.id}`);
    });

  return (
    <div className="grid gap-4 xl:grid-cols-[minmax(0,1fr)_minmax(0,1fr)]">
      <div className="space-y-3 rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900">
        <div className="flex flex-wrap items-center gap-2">
          <div className="flex rounded-md ring-1 ring-slate-200 dark:ring-slate-700" role="tablist">
            {(["mermaid", "yaml", "json"] as const).map((f) => (
              <button
                key={f}
                role="tab"
                aria-selected={format === f}
                onClick={() => {
                  setFormat(f);
                  setSource(EXAMPLES[f]);
                  setSaved(null);
                }}
                className={`px-3 py-1 text-sm ${format === f ? "bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900" : "text-slate-600 hover:bg-slate-50 dark:text-slate-300 dark:hover:bg-slate-800"}`}
              >
                {f === "mermaid" ? "Mermaid" : f.toUpperCase()}
              </button>
            ))}
          </div>
          <span className="text-xs text-slate-600 dark:text-slate-400">switching format loads its example</span>
          {format === "mermaid" && (
            <label className="ml-auto flex items-center gap-1 text-xs text-slate-600 dark:text-slate-300">
              Workflow id
              <input value={id} onChange={(e) => setId(e.target.value)} className="w-44 rounded border border-slate-300 px-2 py-1 font-mono text-xs dark:border-slate-600 dark:bg-slate-950" aria-label="workflow id" />
            </label>
          )}
        </div>
        <div className="flex h-[460px] overflow-hidden rounded-md border border-slate-300 font-mono text-[12.5px] leading-5 dark:border-slate-600">
          <div ref={gutter} className="select-none overflow-hidden bg-slate-50 px-2 py-2 text-right text-slate-600 dark:bg-slate-800 dark:text-slate-400" aria-hidden>
            {Array.from({ length: lines }, (_, i) => (
              <div key={i} className={bad.has(i + 1) ? "font-semibold text-red-600 dark:text-red-400" : ""}>{i + 1}</div>
            ))}
          </div>
          <textarea
            aria-label="workflow definition"
            data-testid="flow-source"
            value={source}
            spellCheck={false}
            onChange={(e) => {
              setSource(e.target.value);
              setSaved(null);
            }}
            onScroll={(e) => {
              if (gutter.current) gutter.current.scrollTop = e.currentTarget.scrollTop;
            }}
            className="h-full flex-1 resize-none whitespace-pre px-2 py-2 outline-none dark:bg-slate-950"
          />
        </div>
        <div data-testid="flow-check" data-valid={check.issues.length === 0}>
          {check.issues.length === 0 ? (
            <>
              <p className="text-sm text-emerald-700 dark:text-emerald-400">✓ Valid: {check.stages} stages, {check.transitions} transitions.</p>
              {!!check.warnings?.length && (
                <ul className="mt-1 space-y-0.5 text-sm text-amber-800 dark:text-amber-300" data-testid="flow-warnings">
                  {check.warnings.map((w, n) => (
                    <li key={n}>⚠ {w.line ? <span className="font-mono text-xs">line {w.line}: </span> : null}{w.message}</li>
                  ))}
                </ul>
              )}
            </>
          ) : (
            <ul className="space-y-0.5 text-sm text-red-700 dark:text-red-400">
              {check.issues.map((i, n) => (
                <li key={n}>{i.line ? <span className="font-mono text-xs">line {i.line}: </span> : null}{i.message}</li>
              ))}
            </ul>
          )}
        </div>
        <div className="flex items-center gap-3">
          <button onClick={save} disabled={pending || check.issues.length > 0} className="rounded-md bg-blue-600 px-4 py-1.5 text-sm font-medium text-white hover:bg-blue-700 disabled:opacity-50">
            {pending ? "Saving…" : "Save workflow"}
          </button>
          {saved && !saved.ok && <p className="text-sm text-red-700 dark:text-red-400" role="alert">{saved.error}</p>}
        </div>
      </div>
      <div className="overflow-hidden rounded-xl border border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900">
        <div className="border-b border-slate-100 px-4 py-2 text-xs font-medium text-slate-600 dark:border-slate-800 dark:text-slate-300">Preview{check.issues.length ? " (last valid version)" : ""}</div>
        {check.layout ? <WorkflowDiagram layout={check.layout} autoCollapse={false} className="h-[560px] w-full" /> : <p className="p-4 text-sm text-slate-600 dark:text-slate-400">The diagram appears once the definition is valid.</p>}
      </div>
    </div>
  );
}
