"use client";
import { useEffect, useState } from "react";
import { Markdown } from "@/components/ui/markdown";

interface Artifact {
  name: string;
  size: number;
  updatedAt: string;
}

const PREFERRED = ["report.md", "task.md", "logs/orchestrator.log", "orchestrator.md"];

/** The files a run keeps, viewable (Markdown rendered, logs as text) and downloadable. */
export function ArtifactsPanel({ runId, version }: { runId: string; version: number }) {
  const [list, setList] = useState<Artifact[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [content, setContent] = useState<string>("");
  useEffect(() => {
    const t = setTimeout(() => {
      fetch(`/api/runs/${runId}/artifacts`)
        .then((r) => (r.ok ? r.json() : []))
        .then((l: Artifact[]) => {
          setList(l);
          setSelected((s) => s ?? PREFERRED.find((p) => l.some((a) => a.name === p)) ?? l[0]?.name ?? null);
        })
        .catch(() => {});
    }, 200);
    return () => clearTimeout(t);
  }, [runId, version]);
  useEffect(() => {
    if (!selected) return;
    fetch(`/api/runs/${runId}/artifacts/${selected}`)
      .then((r) => (r.ok ? r.text() : ""))
      .then(setContent)
      .catch(() => {});
  }, [runId, selected, version]);
  if (list.length === 0) return <p className="p-4 text-sm text-slate-600 dark:text-slate-400">No files yet.</p>;
  const main = list.filter((a) => !a.name.startsWith("assets/"));
  const assets = list.filter((a) => a.name.startsWith("assets/"));
  return (
    <div className="grid gap-3 md:grid-cols-[220px_minmax(0,1fr)]" data-testid="artifacts">
      <ul className="space-y-0.5 text-xs">
        {[...main, ...assets].map((a) => (
          <li key={a.name}>
            <button onClick={() => setSelected(a.name)} className={`flex w-full items-center justify-between rounded px-2 py-1 text-left ${selected === a.name ? "bg-slate-900 text-white dark:bg-slate-200 dark:text-slate-900" : "hover:bg-slate-100 dark:hover:bg-slate-800"}`}>
              <span className="truncate font-mono">{a.name}</span>
              <span className="ml-2 shrink-0 opacity-60">{a.size < 1024 ? `${a.size} B` : `${(a.size / 1024).toFixed(1)} kB`}</span>
            </button>
          </li>
        ))}
      </ul>
      <div className="min-w-0 rounded-lg border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900">
        <div className="flex items-center justify-between border-b border-slate-100 dark:border-slate-800 px-3 py-1.5 text-xs">
          <span className="font-mono font-semibold" data-testid="artifact-name">{selected}</span>
          {selected && <a className="text-blue-700 dark:text-blue-400 underline" href={`/api/runs/${runId}/artifacts/${selected}?download=1`}>Download</a>}
        </div>
        <div tabIndex={0} className="max-h-[520px] overflow-auto p-3" data-testid="artifact-content">
          {selected?.endsWith(".md") && selected !== "task.md" ? <Markdown text={content} /> : <pre className="whitespace-pre-wrap break-words font-mono text-[11px] leading-relaxed text-slate-800 dark:text-slate-200">{content}</pre>}
        </div>
      </div>
    </div>
  );
}
