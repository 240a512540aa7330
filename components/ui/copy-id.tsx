"use client";
import { useState } from "react";

/** A short id with a button that copies the full one. */
export function CopyId({ id, short }: { id: string; short: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(id);
      setCopied(true);
      setTimeout(() => setCopied(false), 1_500);
    } catch {
      // no clipboard (an insecure origin): select the id so it can be copied by hand
      window.prompt("Copy the run id", id);
    }
  };
  return (
    <span className="inline-flex items-center gap-1 font-mono text-xs text-slate-600 dark:text-slate-400" data-testid="run-id" data-id={id}>
      <span title={id}>{short}</span>
      <button type="button" onClick={copy} className="rounded px-1 text-[11px] text-blue-700 dark:text-blue-400 ring-1 ring-slate-200 dark:ring-slate-700 hover:bg-slate-50 dark:hover:bg-slate-800/60" title="Copy the full run id">
        {copied ? "copied" : "copy id"}
      </button>
    </span>
  );
}
