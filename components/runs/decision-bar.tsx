"use client";
// The row of decision buttons under a review. On a phone it sticks to the bottom of the screen
// while its panel is in view (the decision is never a screen or two down); from 1024 px it sits
// in place. A role that cannot decide sees the buttons disabled and the reason; a review decided
// elsewhere keeps its buttons, disabled, under the panel's note.
import { createContext, useContext, type ReactNode } from "react";

/** true: the bar sticks at every width (a panel that scrolls on its own, as in the review inbox) */
export const StickyDecisionBar = createContext(false);
import { NotAllowed, useRole } from "@/components/auth/role";

export function DecisionBar({ closed = false, pending = false, children }: { closed?: boolean; pending?: boolean; children: (disabled: boolean) => ReactNode }) {
  const { may } = useRole();
  const allowed = may("reviewer");
  const always = useContext(StickyDecisionBar);
  const sticky = "sticky bottom-0 z-10 border-t border-slate-200 bg-white/95 py-2 backdrop-blur dark:border-slate-700 dark:bg-slate-900/95";
  return (
    <div className={always ? sticky : `${sticky} lg:static lg:border-0 lg:bg-transparent lg:p-0 lg:backdrop-blur-none lg:dark:bg-transparent`} data-testid="decision-bar">
      {!allowed && <NotAllowed need="reviewer" className="mb-1" />}
      <div className="flex flex-wrap gap-2">
        {children(pending || closed || !allowed)}
        {pending && <span className="self-center text-xs text-slate-600 dark:text-slate-300">Sending…</span>}
      </div>
    </div>
  );
}
