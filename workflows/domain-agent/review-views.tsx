"use client";
import type { ReviewPayloadProps } from "@/components/runs/workflow-views";

/** The agent's clarifying question: what was asked, why, which domains are loaded. */
export function ClarificationPayload({ payload: p }: ReviewPayloadProps) {
  return (
    <div className="space-y-1.5 rounded-md border border-sky-200 bg-sky-50 px-3 py-2 text-xs text-sky-950" data-testid="clarification">
      <p>
        <span className="font-semibold">Your question:</span> {String(p.query ?? "")}
      </p>
      {typeof p.why === "string" && <p className="text-sky-800">Why the agent asks: {p.why}</p>}
      {Array.isArray(p.domains) && p.domains.length > 0 && <p className="text-sky-800">Domains loaded: {(p.domains as string[]).join(", ")}</p>}
      <p className="text-sky-800">Answer below, or decline: the agent then answers from your log alone.</p>
    </div>
  );
}
