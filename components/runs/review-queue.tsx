"use client";
// The review queue's list: each pending review with its decision panel, plus what a queue needs
// when it is long: select several and approve, reject or abort them at once (each item's failure
// reported by name), and the keyboard: j/k move between items, a/r approve or reject the focused
// one after a confirmation (through the item's own buttons, so its edits and feedback go along).
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, useTransition } from "react";
import { abortAction, decideAction, type ActionResult } from "@/app/runs/[id]/actions";
import { Since } from "@/components/ui/since";
import { DecisionPanel, type ReviewInfo } from "./decision-panel";
import { bulkOutcome, type BulkAction, type BulkItem } from "./bulk-outcome";
import { storedReviewer } from "@/components/steps/reviewer";
import { DueBadge, type DueBadgeProps } from "@/components/reviews/due-badge";

export interface QueueItem {
  review: ReviewInfo & { state: string; workflow: string; ageMs: number } & Partial<Pick<DueBadgeProps, "dueAt" | "escalatedFrom" | "assignedTo">>;
  decisions?: string[];
  workflowTitle: string;
  name: string;
}

type Pending = { kind: "one"; action: "approve" | "reject"; index: number } | { kind: "bulk"; action: BulkAction };

const VERB: Record<BulkAction, string> = { approve: "Approve", reject: "Reject", abort: "Abort" };

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

export function ReviewQueue({ items, now }: { items: QueueItem[]; now: number }) {
  const router = useRouter();
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [focus, setFocus] = useState(-1);
  const [confirm, setConfirm] = useState<Pending | null>(null);
  const [report, setReport] = useState<{ text: string; failures: string[] } | null>(null);
  const [busy, start] = useTransition();
  const refs = useRef<(HTMLLIElement | null)[]>([]);
  const ids = items.map((i) => i.review.id).join(",");

  // the list changes under us (decided elsewhere, new reviews): keep only selections still there
  useEffect(() => {
    const present = new Set(ids.split(","));
    setSelected((s) => new Set([...s].filter((id) => present.has(id))));
    setFocus((f) => Math.min(f, ids ? ids.split(",").length - 1 : -1));
  }, [ids]);

  const move = (to: number) => {
    if (items.length === 0) return;
    const i = Math.max(0, Math.min(items.length - 1, to));
    setFocus(i);
    refs.current[i]?.focus();
    refs.current[i]?.scrollIntoView({ block: "nearest" });
  };

  const focusedRef = useRef(focus);
  focusedRef.current = focus;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (confirm || e.metaKey || e.ctrlKey || e.altKey || typing(e.target)) return;
      const f = focusedRef.current;
      if (e.key === "j") move(f + 1);
      else if (e.key === "k") move(f < 0 ? 0 : f - 1);
      else if ((e.key === "a" || e.key === "r") && f >= 0 && items[f]) {
        setConfirm({ kind: "one", action: e.key === "a" ? "approve" : "reject", index: f });
      } else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  const runOne = (action: "approve" | "reject", index: number) => {
    const item = items[index];
    if (!item) return;
    const decisions = item.decisions ?? ["approve", "reject", "modify"];
    if (!decisions.includes(action)) {
      setReport({ text: `“${item.name}” has no ${action} decision here (${decisions.join(", ")}): decide it with its own buttons.`, failures: [] });
      return;
    }
    // the item's own button: its plan edits and feedback go with the decision, its errors show there
    refs.current[index]?.querySelector<HTMLButtonElement>(`[data-decision="${action}"]`)?.click();
    setReport(null);
  };

  const runBulk = (action: BulkAction) =>
    start(async () => {
      const chosen = items.filter((i) => selected.has(i.review.id));
      const results: BulkItem[] = [];
      for (const item of chosen) {
        const decisions = item.decisions ?? ["approve", "reject", "modify"];
        let r: ActionResult;
        if (action === "abort") r = await abortAction({ runId: item.review.runId, reason: "aborted from the review queue" });
        else if (!decisions.includes(action)) r = { ok: false, error: `no ${action} decision here (${decisions.join(", ")})` };
        else r = await decideAction({ reviewId: item.review.id, decision: action, reviewer: storedReviewer() || undefined });
        results.push({ name: item.name, ok: r.ok, error: r.error });
      }
      setReport(bulkOutcome(action, results));
      setSelected(new Set());
      router.refresh();
    });

  const allSelected = items.length > 0 && selected.size === items.length;
  const btn = "rounded-md px-3 py-1.5 text-sm font-medium disabled:opacity-40";
  const pendingItem = confirm?.kind === "one" ? items[confirm.index] : undefined;

  return (
    <div className="space-y-3">
      {items.length > 0 && (
        <div className="sticky top-12 z-10 flex flex-wrap items-center gap-2 rounded-xl border border-slate-200 bg-white/95 px-3 py-2 text-sm shadow-sm backdrop-blur sm:top-16 dark:border-slate-700 dark:bg-slate-900/95" data-testid="bulk-bar">
          <label className="flex items-center gap-2 text-slate-700 dark:text-slate-200">
            <input type="checkbox" checked={allSelected} onChange={() => setSelected(allSelected ? new Set() : new Set(items.map((i) => i.review.id)))} aria-label="Select all" className="h-4 w-4" />
            <span data-testid="selected-count">{selected.size ? `${selected.size} selected` : "Select"}</span>
          </label>
          <div className="flex flex-wrap gap-2">
            <button disabled={!selected.size || busy} onClick={() => setConfirm({ kind: "bulk", action: "approve" })} className={`${btn} bg-emerald-600 text-white hover:bg-emerald-700`}>Approve selected</button>
            <button disabled={!selected.size || busy} onClick={() => setConfirm({ kind: "bulk", action: "reject" })} className={`${btn} bg-white text-red-700 ring-1 ring-red-300 hover:bg-red-50 dark:bg-slate-900`}>Reject selected</button>
            <button disabled={!selected.size || busy} onClick={() => setConfirm({ kind: "bulk", action: "abort" })} className={`${btn} bg-white text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50 dark:bg-slate-900 dark:text-slate-200 dark:ring-slate-600`}>Abort selected</button>
          </div>
          {busy && <span className="text-xs text-slate-500">Working…</span>}
          <span className="ml-auto hidden text-xs text-slate-400 md:inline" data-testid="keyboard-hint">
            <kbd className="font-mono">j</kbd>/<kbd className="font-mono">k</kbd> move · <kbd className="font-mono">a</kbd> approve · <kbd className="font-mono">r</kbd> reject
          </span>
        </div>
      )}
      {report && (
        <div role="status" className={`rounded-lg px-3 py-2 text-sm ${report.failures.length ? "bg-amber-50 text-amber-900 dark:bg-amber-950 dark:text-amber-100" : "bg-emerald-50 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100"}`} data-testid="bulk-result">
          <p>{report.text}</p>
          {report.failures.length > 0 && (
            <ul className="mt-1 list-disc pl-5 text-xs">
              {report.failures.map((f) => (
                <li key={f}>{f}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      <ol className="space-y-4" data-testid="review-queue">
        {items.map((item, index) => {
          const r = item.review;
          const isSelected = selected.has(r.id);
          return (
            <li
              key={r.id}
              ref={(el) => {
                refs.current[index] = el;
              }}
              tabIndex={-1}
              onFocusCapture={() => setFocus(index)}
              data-review={r.id}
              data-run={r.runId}
              data-focused={focus === index ? "true" : undefined}
              className={`rounded-xl border bg-white p-4 shadow-sm outline-none dark:bg-slate-900 ${focus === index ? "border-blue-500 ring-2 ring-blue-500/40" : "border-slate-200 dark:border-slate-700"}`}
            >
              <div className="mb-3 flex flex-wrap items-center gap-2 text-xs text-slate-500 dark:text-slate-400">
                <input
                  type="checkbox"
                  checked={isSelected}
                  onChange={() => setSelected((s) => {
                    const n = new Set(s);
                    if (n.has(r.id)) n.delete(r.id);
                    else n.add(r.id);
                    return n;
                  })}
                  aria-label={`Select ${item.name}`}
                  className="h-4 w-4"
                  data-testid="review-select"
                />
                <span className={`rounded-full px-2 py-0.5 font-semibold ${r.ageMs > 3_600_000 ? "bg-amber-100 text-amber-900" : "bg-slate-100 text-slate-700 dark:bg-slate-800 dark:text-slate-200"}`} data-testid="review-age">
                  waiting <Since from={r.createdAt} now={now} />
                </span>
                <DueBadge dueAt={r.dueAt ?? null} escalatedFrom={r.escalatedFrom ?? null} assignedTo={r.assignedTo ?? null} now={now} />
                <span>{item.workflowTitle}</span>
                <span>·</span>
                <Link href={`/runs/${r.runId}`} className="min-w-0 max-w-full truncate text-blue-700 hover:underline dark:text-blue-400" data-testid="review-run" title={r.runId}>
                  {item.name}
                </Link>
                <span>·</span>
                <span className="font-mono">{r.state}</span>
                <span className="ml-auto">{r.kind.replace(/_/g, " ")}</span>
              </div>
              <DecisionPanel review={r} decisions={item.decisions} compact />
            </li>
          );
        })}
      </ol>
      {confirm && (
        <ConfirmDialog
          title={confirm.kind === "one" ? `${VERB[confirm.action]} “${pendingItem?.name ?? "this review"}”?` : `${VERB[confirm.action]} ${selected.size} selected review${selected.size === 1 ? "" : "s"}?`}
          body={confirm.kind === "one" ? "The decision goes with the feedback and edits written in this item." : confirm.action === "abort" ? "Each run stops where it is (where its workflow has an abort of its own, like Swiss Army Knife's request, that runs); its review closes." : "Each goes without feedback or edits."}
          action={VERB[confirm.action]}
          danger={confirm.action !== "approve"}
          onCancel={() => setConfirm(null)}
          onConfirm={() => {
            const c = confirm;
            setConfirm(null);
            if (c.kind === "one") runOne(c.action, c.index);
            else runBulk(c.action);
            if (c.kind === "one") refs.current[c.index]?.focus();
          }}
        />
      )}
    </div>
  );
}

function ConfirmDialog({ title, body, action, danger, onCancel, onConfirm }: { title: string; body: string; action: string; danger: boolean; onCancel: () => void; onConfirm: () => void }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") onCancel();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onCancel]);
  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center bg-slate-900/40 p-4" onClick={onCancel}>
      <div role="dialog" aria-modal="true" aria-labelledby="confirm-title" className="w-full max-w-sm rounded-xl bg-white p-4 shadow-xl dark:bg-slate-900" onClick={(e) => e.stopPropagation()} data-testid="confirm-dialog">
        <h2 id="confirm-title" className="break-words text-base font-semibold text-slate-900 dark:text-slate-100">{title}</h2>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{body}</p>
        <div className="mt-4 flex justify-end gap-2">
          <button onClick={onCancel} className="rounded-md px-3 py-1.5 text-sm text-slate-600 ring-1 ring-slate-300 hover:bg-slate-50 dark:text-slate-300 dark:ring-slate-600 dark:hover:bg-slate-800">Cancel</button>
          <button autoFocus onClick={onConfirm} className={`rounded-md px-3 py-1.5 text-sm font-medium text-white ${danger ? "bg-red-600 hover:bg-red-700" : "bg-emerald-600 hover:bg-emerald-700"}`}>
            {action}
          </button>
        </div>
      </div>
    </div>
  );
}
