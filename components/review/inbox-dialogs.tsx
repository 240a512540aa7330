"use client";
// The inbox's two dialogs: a confirmation before a keyboard or bulk decision, and the keys.
import { useEffect, type ReactNode } from "react";

function Dialog({ label, onClose, testId, children }: { label: string; onClose: () => void; testId: string; children: ReactNode }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center bg-slate-900/40 p-4" onClick={onClose}>
      <div role="dialog" aria-modal="true" aria-labelledby={`${testId}-title`} className="w-full max-w-sm rounded-xl bg-white p-4 shadow-xl dark:bg-slate-900" onClick={(e) => e.stopPropagation()} data-testid={testId}>
        <h2 id={`${testId}-title`} className="break-words text-base font-semibold text-slate-900 dark:text-slate-100">
          {label}
        </h2>
        {children}
      </div>
    </div>
  );
}

export function ConfirmDialog({ title, body, action, danger, onCancel, onConfirm }: { title: string; body: string; action: string; danger: boolean; onCancel: () => void; onConfirm: () => void }) {
  return (
    <Dialog label={title} onClose={onCancel} testId="confirm-dialog">
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{body}</p>
      <div className="mt-4 flex justify-end gap-2">
        <button onClick={onCancel} className="rounded-md px-3 py-1.5 text-sm text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50 dark:text-slate-200 dark:ring-slate-600 dark:hover:bg-slate-800">
          Cancel
        </button>
        <button autoFocus onClick={onConfirm} className={`rounded-md px-3 py-1.5 text-sm font-medium text-white ${danger ? "bg-red-700 hover:bg-red-800" : "bg-emerald-700 hover:bg-emerald-800"}`}>
          {action}
        </button>
      </div>
    </Dialog>
  );
}

export const KEYS: [string, string][] = [
  ["j / k", "next / previous review"],
  ["Enter", "open the review (on a phone: full screen)"],
  ["a", "approve (after a confirmation)"],
  ["r", "reject (after a confirmation)"],
  ["e", "edit what is under review"],
  ["c", "request changes: write what should change"],
  ["o", "open the run"],
  ["/", "search"],
  ["?", "this help"],
  ["Esc", "close a dialog, back to the list"],
];

export function HelpOverlay({ onClose }: { onClose: () => void }) {
  return (
    <Dialog label="Keyboard shortcuts" onClose={onClose} testId="keys-help">
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1.5 text-sm">
        {KEYS.map(([k, what]) => (
          <div key={k} className="contents">
            <dt>
              <kbd className="rounded border border-slate-300 bg-slate-50 px-1.5 font-mono text-xs text-slate-800 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100">{k}</kbd>
            </dt>
            <dd className="text-slate-700 dark:text-slate-200">{what}</dd>
          </div>
        ))}
      </dl>
      <p className="mt-3 text-xs text-slate-600 dark:text-slate-300">Keys do nothing while you type in a field.</p>
      <div className="mt-4 flex justify-end">
        <button autoFocus onClick={onClose} className="rounded-md px-3 py-1.5 text-sm text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50 dark:text-slate-200 dark:ring-slate-600 dark:hover:bg-slate-800">
          Close
        </button>
      </div>
    </Dialog>
  );
}
