"use client";
// A workflow's own views on the run page and in the review queue. Each workflow folder has a
// views.tsx ("use client") whose default export is a WorkflowViews; the server page loads it
// through the registry (lib/machines/registry's viewsOf) and hands it down with
// <WorkflowViewsProvider>. Generic components ask useWorkflowViews(id); none names a workflow.
import { createContext, useContext, type ComponentType, type ReactNode } from "react";

export interface RunViewProps {
  runId: string;
  context: unknown;
  /** the run's sequence number: changes on every commit (for panels that fetch) */
  version: number;
}

export interface RunTab {
  id: string;
  label: string;
  /** shown after the label, e.g. "Sources (12)" */
  count?: number;
}

export interface ReviewPayloadProps {
  payload: Record<string, unknown>;
  compact?: boolean;
  /** an editable payload reports the edit that goes with approve / request changes */
  onEdit?: (d: { value: Record<string, unknown> | null; error: string | null }) => void;
}

export interface WorkflowViews {
  /** the run page's tabs for this context, the first one open (none: no views panel) */
  tabs?: (context: unknown) => RunTab[];
  /** one tab's content */
  Tab?: ComponentType<RunViewProps & { tab: string }>;
  /** a review's payload, by the payload's kind (a kind without one gets the generic view) */
  reviews?: Record<string, ComponentType<ReviewPayloadProps>>;
}

const Views = createContext<Record<string, WorkflowViews>>({});

export function WorkflowViewsProvider({ views, children }: { views: Record<string, WorkflowViews | null | undefined>; children: ReactNode }) {
  const outer = useContext(Views);
  const own = Object.fromEntries(Object.entries(views).filter((e): e is [string, WorkflowViews] => !!e[1]));
  return <Views.Provider value={{ ...outer, ...own }}>{children}</Views.Provider>;
}

/** the views of workflow `id` (undefined: it has none, or the page did not provide them) */
export function useWorkflowViews(id: string | undefined): WorkflowViews | undefined {
  const all = useContext(Views);
  return id ? all[id] : undefined;
}

/** the renderer of a review payload's kind: the review's workflow's, else any provided workflow's */
export function useReviewView(workflow: string | undefined, kind: unknown): ComponentType<ReviewPayloadProps> | undefined {
  const all = useContext(Views);
  if (typeof kind !== "string") return undefined;
  if (workflow) return all[workflow]?.reviews?.[kind];
  for (const v of Object.values(all)) if (v.reviews?.[kind]) return v.reviews[kind];
  return undefined;
}
