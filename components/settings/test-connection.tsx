"use client";
import { useState, useTransition } from "react";
import { testConnectionAction, type ConnectionResult } from "@/app/settings/actions";

export function TestConnection({ name }: { name: string }) {
  const [result, setResult] = useState<ConnectionResult | null>(null);
  const [pending, start] = useTransition();
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid={`test-${name}`}>
      <button
        disabled={pending}
        onClick={() => start(async () => setResult(await testConnectionAction(name)))}
        className="rounded-md bg-white px-2.5 py-1 text-xs font-medium text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50 disabled:opacity-50"
      >
        {pending ? "Testing…" : "Test connection"}
      </button>
      {result && (
        <span className={`text-xs ${result.ok ? "text-emerald-700" : "text-red-700"}`} data-ok={result.ok}>
          {result.ok ? `✓ ${result.model} answered in ${result.latencyMs} ms` : `✗ ${result.category ? `${result.category}: ` : ""}${result.error}`}
        </span>
      )}
    </div>
  );
}
