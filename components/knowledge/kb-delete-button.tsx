"use client";
import { Allowed } from "@/components/auth/role";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { deleteDocumentAction } from "@/app/knowledge/actions";

/** Delete a document after a confirmation. */
function KbDeleteButtonInner({ id, title, chunks }: { id: string; title: string; chunks: number }) {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [error, setError] = useState<string | null>(null);
  return (
    <span className="inline-flex flex-col items-end gap-0.5">
      <button
        type="button"
        disabled={pending}
        data-testid="kb-delete"
        onClick={() => {
          if (!window.confirm(`Delete “${title}” and its ${chunks} chunk${chunks === 1 ? "" : "s"}? Searches will no longer find it.`)) return;
          setError(null);
          start(async () => {
            const r = await deleteDocumentAction({ id });
            if (!r.ok) setError(r.error ?? "delete failed");
            router.refresh();
          });
        }}
        className="rounded-md px-2 py-1 text-xs font-medium text-red-700 ring-1 ring-red-200 hover:bg-red-50 disabled:opacity-50 dark:text-red-300"
      >
        {pending ? "Deleting…" : "Delete"}
      </button>
      {error && <span className="text-[11px] text-red-600">{error}</span>}
    </span>
  );
}

/** offered to admins and above; others see why not */
export function KbDeleteButton(props: Parameters<typeof KbDeleteButtonInner>[0]) {
  return (
    <Allowed need="admin" quiet>
      <KbDeleteButtonInner {...props} />
    </Allowed>
  );
}
