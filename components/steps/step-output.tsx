"use client";
// A step's output as a person reads it: text as text, JSON pretty-printed and collapsible, and a
// long output clipped with "show all".
import { useState } from "react";
import { Markdown } from "@/components/ui/markdown";

const CLIP = 700;

function Clipped({ text, mono, markdown, testId }: { text: string; mono?: boolean; markdown?: boolean; testId?: string }) {
  const [all, setAll] = useState(false);
  const long = text.length > CLIP;
  const shown = long && !all ? `${text.slice(0, CLIP)}…` : text;
  return (
    <div data-testid={testId}>
      {markdown ? (
        <div tabIndex={0} className="max-w-full overflow-x-auto break-words rounded-md bg-slate-50 px-3 py-2 text-sm text-slate-800 dark:bg-slate-800/60 dark:text-slate-100">
          <Markdown text={shown} />
        </div>
      ) : (
        <pre tabIndex={0} className={`max-w-full overflow-x-auto whitespace-pre-wrap break-words rounded-md bg-slate-50 px-3 py-2 text-[13px] leading-relaxed text-slate-800 dark:bg-slate-800/60 dark:text-slate-100 ${mono ? "font-mono text-xs" : "font-sans"}`}>{shown}</pre>
      )}
      {long && (
        <button type="button" onClick={() => setAll(!all)} className="mt-1 text-xs text-blue-700 underline dark:text-blue-400">
          {all ? "show less" : `show all (${text.length.toLocaleString("en")} characters)`}
        </button>
      )}
    </div>
  );
}

/** A value: a string as text; anything else as JSON, in a collapsible block. */
export function StepValue({ value, label = "Output", testId = "step-output" }: { value: unknown; label?: string; testId?: string }) {
  if (value === null || value === undefined) return <p className="text-xs text-slate-600 dark:text-slate-400">(no {label.toLowerCase()})</p>;
  // text (a model's answer, most often Markdown) is rendered as Markdown
  if (typeof value === "string") return value ? <Clipped text={value} markdown testId={testId} /> : <p className="text-xs text-slate-600 dark:text-slate-400">(empty)</p>;
  const json = JSON.stringify(value, null, 2);
  const short = json.length <= 300;
  const summary = Array.isArray(value) ? `JSON array, ${value.length} item${value.length === 1 ? "" : "s"}` : typeof value === "object" ? `JSON object: ${Object.keys(value as object).slice(0, 6).join(", ")}${Object.keys(value as object).length > 6 ? ", …" : ""}` : "JSON";
  return (
    <details open={short} className="group" data-testid={testId} data-json="true">
      <summary className="cursor-pointer select-none text-xs text-slate-600 hover:text-slate-800 dark:text-slate-400 dark:hover:text-slate-200">{summary}</summary>
      <div className="mt-1">
        <Clipped text={json} mono />
      </div>
    </details>
  );
}

/** Text shown folded (an llm step's prompt). */
export function Folded({ label, text, testId }: { label: string; text: string; testId?: string }) {
  return (
    <details data-testid={testId}>
      <summary className="cursor-pointer select-none text-xs text-slate-600 hover:text-slate-800 dark:text-slate-400 dark:hover:text-slate-200">{label}</summary>
      <div className="mt-1">
        <Clipped text={text} mono />
      </div>
    </details>
  );
}
