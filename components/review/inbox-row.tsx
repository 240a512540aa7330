"use client";
// One line of the inbox: run name, workflow, kind, state, age, deadline; greyed with who decided
// it when someone else did.
import { Ago, Since } from "@/components/ui/since";
import { humanize } from "@/lib/format";
import { DueBadge, routingOfInfo } from "@/components/reviews/due-badge";
import { decidedText } from "./due";
import type { Gone, InboxItem } from "./types";

export function InboxRow({ item, now, selected, checked, gone, onCheck, onOpen, onFocus, rowRef }: { item: InboxItem; now: number; selected: boolean; checked: boolean; gone: Gone | "loading" | null; onCheck: () => void; onOpen: () => void; onFocus: () => void; rowRef: (el: HTMLButtonElement | null) => void }) {
  const r = item.review;
  return (
    <li
      className={`flex items-stretch gap-2 px-3 ${selected ? "bg-blue-50 dark:bg-blue-950/60" : ""} ${gone ? "opacity-70" : ""}`}
      data-testid="review-row"
      data-review={r.id}
      data-run={r.runId}
      data-selected={selected ? "true" : undefined}
      data-gone={gone ? "true" : undefined}
    >
      <input type="checkbox" checked={checked} disabled={!!gone} onChange={onCheck} aria-label={`Select ${item.name}`} className="mt-2.5 h-4 w-4 shrink-0" data-testid="review-select" />
      <button
        ref={rowRef}
        type="button"
        onClick={onOpen}
        onFocus={onFocus}
        aria-current={selected ? "true" : undefined}
        className={`min-w-0 flex-1 py-1.5 text-left outline-none focus-visible:ring-2 focus-visible:ring-blue-600 ${selected ? "border-l-4 border-blue-600 pl-2 -ml-1" : "pl-1"}`}
      >
        <span className="flex items-baseline gap-2">
          <span className={`min-w-0 flex-1 truncate text-sm font-medium ${gone ? "text-slate-600 line-through decoration-slate-400 dark:text-slate-300" : "text-slate-900 dark:text-slate-100"}`} data-testid="review-run" title={item.name}>
            {item.name}
          </span>
          <span className={`shrink-0 text-xs tabular-nums ${r.ageMs > 3_600_000 ? "font-semibold text-amber-800 dark:text-amber-300" : "text-slate-600 dark:text-slate-300"}`} data-testid="review-age" title="waiting for">
            <Since from={r.createdAt} now={now} />
          </span>
        </span>
        <span className="flex items-baseline gap-1.5 text-xs text-slate-600 dark:text-slate-300">
          {gone ? (
            <span className="min-w-0 flex-1 truncate font-medium text-slate-800 dark:text-slate-100" data-testid="review-decided">
              {gone === "loading" ? "Decided elsewhere" : (
                <>
                  {decidedText(gone)}
                  {gone.decidedAt && (
                    <>
                      {" · "}
                      <Ago at={gone.decidedAt} now={now} />
                    </>
                  )}
                </>
              )}
            </span>
          ) : (
            <span className="min-w-0 flex-1 truncate">
              <span data-testid="review-workflow">{item.workflowTitle}</span> · <span data-testid="review-kind">{humanize(r.kind)}</span> · <span className="font-mono">{r.state}</span>
            </span>
          )}
          <span className="shrink-0 empty:hidden">
            <DueBadge {...routingOfInfo(r)} now={now} />
          </span>
        </span>
      </button>
    </li>
  );
}
