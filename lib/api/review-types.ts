// Reviews as a typed API: for any review, the decisions it allows, the JSON Schema of
// the body each decision is sent with (POST /api/reviews/{id}/decision), and its approvals so far
// and needed, so a generic client can render a review without knowing the workflow.
import { z } from "zod";
import type { ReviewView } from "../engine/views";
import { authEnabled } from "../auth/roles";
import { findWorkflow } from "../machines/registry";
import type { StateMeta, WorkflowDefinition } from "../machines/types";

export interface TypedReview extends ReviewView {
  decisions: string[];
  /** decision → JSON Schema of the decision's request body */
  decisionSchemas: Record<string, unknown>;
  approvals: { so_far: number; needed: number; by: string[] };
}

const TOP = ["feedback", "reviewer", "modifications"] as const;
const base = { feedback: z.string().max(10_000).optional(), reviewer: z.string().max(200).optional(), modifications: z.array(z.string().max(2_000)).max(50).optional() };

/** The state node at a state path ("REVIEW", "PARENT.CHILD") of a workflow's machine. */
function metaAt(def: WorkflowDefinition, path: string): StateMeta | undefined {
  let node = def.machine.root as unknown as { states: Record<string, unknown>; meta?: StateMeta } | undefined;
  for (const seg of path.split(".")) node = node?.states?.[seg] as typeof node;
  return node?.meta;
}

/**
 * The body of one decision: fields of its client event (when the workflow declares one) at the top
 * or under `data`. `reviewerRequired`: a quorum review with accounts off counts people by the
 * name they give, so `reviewer` is required.
 */
export function decisionBodySchema(def: WorkflowDefinition | undefined, decision: string, opts: { reviewerRequired?: boolean } = {}): unknown {
  const event = def?.events[decision.toUpperCase()];
  const shape = event instanceof z.ZodObject ? (event.shape as Record<string, z.core.$ZodType>) : {};
  const top = Object.fromEntries(TOP.map((k) => [k, shape[k] ?? base[k]]));
  if (opts.reviewerRequired) top.reviewer = z.string().trim().min(1, "say who decides").max(200);
  const rest = Object.fromEntries(Object.entries(shape).filter(([k]) => k !== "type" && !(TOP as readonly string[]).includes(k)));
  const body = z.object({ decision: z.literal(decision), ...top, ...(Object.keys(rest).length ? { data: z.object(rest) } : { data: z.record(z.string(), z.unknown()).optional() }) });
  return z.toJSONSchema(body, { io: "input", unrepresentable: "any" });
}

/**
 * A review with its decisions, their body schemas and its approvals. `input`: the run's input (pins
 * a user workflow's version). `accounts`: whether decisions are made signed in (SWITCHYARD_AUTH=on).
 */
export function typedReview(review: ReviewView, input?: unknown, accounts = authEnabled()): TypedReview {
  const def = findWorkflow(review.workflow, input);
  const meta = def ? metaAt(def, review.state)?.review : undefined;
  const decisions = meta?.decisions ?? [];
  const reviewerRequired = (meta?.approvers ?? 1) > 1 && !accounts;
  const counted = (review.payload as { approvals?: { so_far?: unknown; needed?: unknown; by?: unknown } } | null)?.approvals;
  const approvals =
    counted && typeof counted.so_far === "number" && typeof counted.needed === "number"
      ? { so_far: counted.so_far, needed: counted.needed, by: Array.isArray(counted.by) ? counted.by.map(String) : [] }
      : { so_far: 0, needed: 1, by: [] };
  return { ...review, decisions, decisionSchemas: Object.fromEntries(decisions.map((d) => [d, decisionBodySchema(def, d, { reviewerRequired })])), approvals };
}
