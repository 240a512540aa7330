import type { ReviewInfo } from "@/components/runs/decision-panel";

/** One pending review as the inbox shows it. Routing fields appear when the server sends them. */
export interface InboxItem {
  review: ReviewInfo & {
    state: string;
    workflow: string;
    ageMs: number;
    decisions?: string[];
    decisionSchemas?: Record<string, unknown>;
    assignedTo?: string[] | null;
    dueAt?: string | null;
    overdue?: boolean;
    escalatedFrom?: string[] | null;
  };
  /** the decisions its state offers (from the machine) */
  decisions?: string[];
  workflowTitle: string;
  name: string;
}

/** a review that left the pending list: how it was decided (GET /api/reviews/{id}) */
export interface Gone {
  status: string;
  decision: string | null;
  reviewer: string | null;
  decidedAt: string | null;
}

/** the filter module's view of an item */
export function filterable(i: InboxItem) {
  return { ...i.review, name: i.name, workflowTitle: i.workflowTitle };
}
