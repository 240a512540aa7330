"use client";
import type { AgentContext } from "./types";
import type { RunViewProps, WorkflowViews } from "@/components/runs/workflow-views";
import { AgentAnswer, AgentEntries, AgentObserver, AgentReasoning } from "./agent-views";
import { ClarificationPayload } from "./review-views";

function Tab({ tab, context }: RunViewProps & { tab: string }) {
  const a = context as AgentContext;
  if (tab === "answer") return <AgentAnswer c={a} />;
  if (tab === "reasoning") return <AgentReasoning c={a} />;
  if (tab === "entries") return <AgentEntries c={a} />;
  if (tab === "observer") return <AgentObserver c={a} />;
  return null;
}

const views: WorkflowViews = {
  tabs: (context) => {
    const a = context as AgentContext;
    return [
      ...(a.answer || a.inputType !== "LOG" ? [{ id: "answer", label: "Answer" }] : []),
      { id: "reasoning", label: "Reasoning" },
      ...(a.parsed?.length || a.inputType !== "QUERY" ? [{ id: "entries", label: "Entries", count: a.parsed?.length ?? 0 }] : []),
      { id: "observer", label: "Observer" },
    ];
  },
  Tab,
  reviews: { clarification: ClarificationPayload },
};
export default views;
