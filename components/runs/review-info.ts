// A pending review as the run page and the review queue show it (the decision panel, the payload).
export interface ReviewInfo {
  id: string;
  runId: string;
  kind: string;
  prompt: string;
  payload: Record<string, unknown>;
  createdAt: string;
}
