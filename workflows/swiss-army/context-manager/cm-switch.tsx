"use client";
import { Allowed } from "@/components/auth/role";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { setContextManagerAction } from "./actions";

function CmSwitchInner({ available }: { available: boolean }) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [note, setNote] = useState<string | null>(null);
  return (
    <div className="flex flex-wrap items-center gap-2">
      <button
        disabled={pending}
        data-testid="cm-switch"
        onClick={() =>
          start(async () => {
            const r = await setContextManagerAction({ offline: available });
            setNote(r.ok ? (available ? "Offline: runs skip the search and queue their writes." : `Back online${r.flushed ? `: ${r.flushed} queued write(s) stored` : ""}.`) : (r.error ?? "failed"));
            router.refresh();
          })
        }
        className={`rounded-md px-3 py-1 text-xs font-medium ring-1 disabled:opacity-50 ${available ? "bg-white dark:bg-slate-900 text-amber-800 ring-amber-300 hover:bg-amber-50" : "bg-emerald-600 text-white ring-emerald-600 hover:bg-emerald-700"} dark:text-amber-300`}
      >
        {available ? "Take offline (maintenance)" : "Bring back online"}
      </button>
      {note && <span className="text-xs text-slate-600 dark:text-slate-400">{note}</span>}
    </div>
  );
}

/** offered to admins and above; others see why not */
export function CmSwitch(props: Parameters<typeof CmSwitchInner>[0]) {
  return (
    <Allowed need="admin">
      <CmSwitchInner {...props} />
    </Allowed>
  );
}
