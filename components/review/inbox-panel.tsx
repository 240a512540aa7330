"use client";
// The selected review in the inbox: what it is about, its deadline and routing, and its typed
// decision panel. Kept mounted once opened, so what the user wrote survives moving around the
// list and a decision made elsewhere (then the panel says who decided, and takes no decision).
import Link from "@/components/ui/link";
import type { ActionResult } from "@/app/runs/[id]/actions";
import { DecisionPanel } from "@/components/runs/decision-panel";
import { StickyDecisionBar } from "@/components/runs/decision-bar";
import { Ago, Since } from "@/components/ui/since";
import { humanize } from "@/lib/format";
import { DueBadge, routingOfInfo } from "@/components/reviews/due-badge";
import { decidedText } from "./due";
import type { Gone, InboxItem } from "./types";

export function InboxPanel({ item, now, hidden, gone, onBack, onDismiss, onSending, onDone, panelRef }: { item: InboxItem; now: number; hidden: boolean; gone: Gone | "loading" | null; onBack: () => void; onDismiss: () => void; onSending: () => void; onDone: (r: ActionResult) => void; panelRef: (el: HTMLDivElement | null) => void }) {
  const r = item.review;
  return (
    <section ref={panelRef} hidden={hidden} aria-labelledby={`panel-${r.id}`} className={`rounded-xl border bg-white p-4 pb-0 shadow-sm lg:max-h-[var(--inbox-panel-max,calc(100vh-5.5rem))] lg:overflow-y-auto dark:bg-slate-900 ${gone ? "border-slate-300 dark:border-slate-600" : "border-slate-200 dark:border-slate-700"}`} data-testid="review-panel" data-review={r.id} data-run={r.runId} data-gone={gone ? "true" : undefined}>
      <button type="button" onClick={onBack} className="mb-2 text-sm font-medium text-blue-700 underline lg:hidden dark:text-blue-300" data-testid="inbox-back">
        ← All reviews
      </button>
      <div className="mb-3 space-y-1">
        <h2 id={`panel-${r.id}`} tabIndex={-1} data-panel-heading className="break-words text-base font-semibold text-slate-900 outline-none dark:text-slate-100">
          {item.name}
        </h2>
        <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-slate-600 dark:text-slate-300">
          <span>{item.workflowTitle}</span>
          <span aria-hidden>·</span>
          <span>{humanize(r.kind)}</span>
          <span aria-hidden>·</span>
          <span className="font-mono">{r.state}</span>
          <span aria-hidden>·</span>
          <span>
            waiting <Since from={r.createdAt} now={now} />
          </span>
          <DueBadge {...routingOfInfo(r)} now={now} />
          <Link href={`/runs/${r.runId}`} className="ml-auto font-medium text-blue-700 underline dark:text-blue-300" data-testid="open-run" aria-keyshortcuts="o">
            Open run
          </Link>
        </p>
      </div>
      {gone && (
        <div role="status" className="mb-3 flex flex-wrap items-center gap-2 rounded-md border border-slate-300 bg-slate-100 px-3 py-2 text-sm text-slate-800 dark:border-slate-600 dark:bg-slate-800 dark:text-slate-100" data-testid="decided-elsewhere">
          <span className="font-semibold">
            {gone === "loading" ? "Decided elsewhere" : decidedText(gone)}
            {gone !== "loading" && gone.decidedAt && (
              <>
                {" · "}
                <Ago at={gone.decidedAt} now={now} />
              </>
            )}
          </span>
          <span>What you wrote is kept below; this review takes no more decisions.</span>
          <button type="button" onClick={onDismiss} className="ml-auto rounded-md px-2 py-0.5 text-xs ring-1 ring-slate-400 hover:bg-white dark:hover:bg-slate-700">
            Dismiss
          </button>
        </div>
      )}
      <div className={gone ? "opacity-70" : ""}>
        <StickyDecisionBar.Provider value={true}>
          <DecisionPanel review={r} decisions={item.decisions} compact closed={!!gone} onSending={onSending} onDone={onDone} />
        </StickyDecisionBar.Provider>
      </div>
    </section>
  );
}
