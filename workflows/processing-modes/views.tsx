"use client";
import type { ModesContext } from "./types";
import type { RunViewProps, WorkflowViews } from "@/components/runs/workflow-views";
import { ModeResultView, ModeRouting, ModeWork } from "./mode-views";

function Tab({ tab, context }: RunViewProps & { tab: string }) {
  const c = context as ModesContext;
  if (tab === "result") return <ModeResultView c={c} />;
  if (tab === "routing") return <ModeRouting c={c} />;
  if (tab === "work") return <ModeWork c={c} />;
  return null;
}

const views: WorkflowViews = {
  tabs: () => [
    { id: "result", label: "Result" },
    { id: "routing", label: "Routing & metrics" },
    { id: "work", label: "What the mode did" },
  ],
  Tab,
};
export default views;
