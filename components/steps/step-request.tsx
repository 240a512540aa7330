"use client";
import { useState } from "react";
// What a step sent (lib/steps/request.ts): an http step's method, URL, headers (secrets shown as
// "[secret]"), body and Idempotency-Key; a code step's program; the input an external worker got;
// an llm step's prompt and schema. Folded; one click shows it.
import type { StepRequest } from "@/lib/steps/request";
import { Folded, StepValue } from "./step-output";

const LABEL: Record<StepRequest["kind"], string> = { http: "Request sent", code: "Code run", external: "Task input the worker got", llm: "Prompt sent" };

export function StepRequestView({ request }: { request: StepRequest }) {
  if (request.kind === "llm") {
    return (
      <div className="space-y-1">
        <Folded label={LABEL.llm} text={request.system ? `${request.system}\n\n${request.prompt}` : request.prompt} testId="step-prompt" />
        {request.schema && <Folded label="Output schema" text={JSON.stringify(request.schema, null, 2)} testId="step-schema" />}
      </div>
    );
  }
  return (
    <details className="group" data-testid="step-request" data-kind={request.kind}>
      <summary className="cursor-pointer select-none text-xs text-slate-600 hover:text-slate-800 dark:text-slate-400 dark:hover:text-slate-200">
        {LABEL[request.kind]}
        {request.kind === "http" && <span className="ml-1 font-mono text-slate-600 dark:text-slate-300">{request.method} {request.url}</span>}
        {request.kind === "external" && <span className="ml-1 font-mono text-slate-600 dark:text-slate-300">queue {request.queue}</span>}
        {request.kind === "code" && <span className="ml-1 text-slate-600 dark:text-slate-300">{request.language}</span>}
      </summary>
      <div className="mt-1 min-w-0 space-y-2">
        {request.kind === "http" && (
          <>
            <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-0.5 rounded-md bg-slate-50 px-3 py-2 font-mono text-xs dark:bg-slate-800/60" data-testid="step-request-headers">
              <dt className="text-slate-600 dark:text-slate-400">{request.method}</dt>
              <dd className="break-all text-slate-800 dark:text-slate-100">{request.url}</dd>
              <dt className="text-slate-600 dark:text-slate-400">Idempotency-Key</dt>
              <dd className="break-all text-slate-800 dark:text-slate-100">
                <IdempotencyKey value={request.idempotencyKey} />
              </dd>
              {Object.entries(request.headers).map(([k, v]) => (
                <Header key={k} name={k} value={v} />
              ))}
            </dl>
            {request.body !== undefined && (
              <div>
                <p className="mb-1 text-[11px] font-semibold uppercase tracking-wide text-slate-600 dark:text-slate-400">Body</p>
                <StepValue value={request.body} label="Body" testId="step-request-body" />
              </div>
            )}
          </>
        )}
        {request.kind === "code" && <Folded label="Program" text={request.source} testId="step-request-source" />}
        {request.kind === "external" && <StepValue value={request.input} label="Input" testId="step-request-input" />}
      </div>
    </details>
  );
}

function Header({ name, value }: { name: string; value: string }) {
  return (
    <>
      <dt className="text-slate-600 dark:text-slate-400">{name}</dt>
      <dd className={`break-all ${value === "[secret]" ? "italic text-amber-700 dark:text-amber-300" : "text-slate-800 dark:text-slate-100"}`}>{value}</dd>
    </>
  );
}

/**
 * The step's Idempotency-Key (runId:invocation:n): shown with the run id shortened, as lists show
 * ids, the whole key in its title and on the copy button (it is what a receiver's log shows).
 */
function IdempotencyKey({ value }: { value: string }) {
  const [copied, setCopied] = useState(false);
  const at = value.indexOf(":");
  const short = at > 8 ? `${value.slice(0, 8)}…${value.slice(at)}` : value;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
      setTimeout(() => setCopied(false), 1_500);
    } catch {
      window.prompt("Copy the Idempotency-Key", value);
    }
  };
  return (
    <span className="inline-flex flex-wrap items-center gap-1" data-testid="step-idempotency-key" data-key={value}>
      <span title={value}>{short}</span>
      <button type="button" onClick={copy} className="rounded px-1 font-sans text-[11px] text-blue-700 ring-1 ring-slate-200 hover:bg-slate-50 dark:text-blue-400 dark:ring-slate-700 dark:hover:bg-slate-800/60" title="Copy the Idempotency-Key">
        {copied ? "copied" : "copy"}
      </button>
    </span>
  );
}
