"use client";
import { Allowed } from "@/components/auth/role";
import { useState, useTransition } from "react";
import { testConnectionAction, type ConnectionResult } from "@/app/settings/actions";

function TestConnectionInner({ name }: { name: string }) {
  const [result, setResult] = useState<ConnectionResult | null>(null);
  const [pending, start] = useTransition();
  return (
    <div className="flex flex-wrap items-center gap-2" data-testid={`test-${name}`}>
      <button
        disabled={pending}
        onClick={() => start(async () => setResult(await testConnectionAction(name)))}
        className="rounded-md bg-white dark:bg-slate-900 px-2.5 py-1 text-xs font-medium text-slate-700 dark:text-slate-300 ring-1 ring-slate-300 dark:ring-slate-600 hover:bg-slate-50 dark:hover:bg-slate-800/60 disabled:opacity-50"
      >
        {pending ? "Testing…" : "Test connection"}
      </button>
      {result && (
        <span className={`text-xs ${result.ok ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400"}`} data-ok={result.ok}>
          {result.ok ? `✓ ${result.model} answered in ${result.latencyMs} ms` : `✗ ${result.category ? `${result.category}: ` : ""}${result.error}`}
        </span>
      )}
    </div>
  );
}

/** offered to admins and above; others see why not */
export function TestConnection(props: Parameters<typeof TestConnectionInner>[0]) {
  return (
    <Allowed need="admin">
      <TestConnectionInner {...props} />
    </Allowed>
  );
}
