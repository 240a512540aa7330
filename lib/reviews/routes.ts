// Who a review goes to and by when: `assign: [group…]` and `due: { after_s, escalate: [group…] }`,
// written inside a step's `review:` (lib/steps/schema.ts) or, for the built-in workflows' review
// states, in SWITCHYARD_REVIEW_ROUTES (JSON: { "<workflow>": { "<state id>": { assign, due } } }).
// `due` only re-routes the review when it passes (lib/reviews/routing.ts); the run stays where it is.
import { z } from "zod";
import type { AnyStateNode } from "xstate";
import type { StateMeta, WorkflowDefinition } from "../machines/types";

/** a group name: lower-case letters, digits, . _ - (what `npm run user -- group --add` takes) */
export const GROUP_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;
export const GroupName = z.string().trim().toLowerCase().regex(GROUP_NAME, "a group name is lower-case letters, digits, . _ - (up to 63)");
const Groups = z.array(GroupName).min(1, "name at least one group").max(20, "at most 20 groups").transform((g) => [...new Set(g)]);

export const ReviewRouteSchema = z
  .object({
    /** the groups whose members may decide it (with accounts on; otherwise a label to route and filter by) */
    assign: Groups.optional(),
    /** when it is due, and whom it goes to once it is overdue */
    due: z
      .object({
        after_s: z.number().positive("after_s must be more than 0").max(366 * 86_400, "after_s is at most a year"),
        escalate: Groups,
      })
      .strict()
      .optional(),
  })
  .strict();

export type ReviewRoute = z.output<typeof ReviewRouteSchema>;

/** SWITCHYARD_REVIEW_ROUTES parsed: workflow id → state id → route */
export type ReviewRoutes = Record<string, Record<string, ReviewRoute>>;

const RoutesSchema = z.record(z.string().min(1), z.record(z.string().min(1), ReviewRouteSchema));

/** The ids of a machine's review states (full paths). */
export function reviewStatesOf(def: Pick<WorkflowDefinition, "machine">): string[] {
  const out: string[] = [];
  const walk = (node: AnyStateNode) => {
    if ((node.meta as StateMeta | undefined)?.review) out.push(node.path.join("."));
    for (const child of Object.values(node.states ?? {})) walk(child as AnyStateNode);
  };
  walk(def.machine.root as AnyStateNode);
  return out;
}

/**
 * SWITCHYARD_REVIEW_ROUTES, checked at startup: the JSON's shape, then each workflow is a built-in
 * one and each state one of its review states. A mistake throws with the path and what is wrong.
 */
export function reviewRoutesFromEnv(env: NodeJS.ProcessEnv, builtIns: Pick<WorkflowDefinition, "id" | "machine">[]): ReviewRoutes {
  const raw = env.SWITCHYARD_REVIEW_ROUTES?.trim();
  if (!raw) return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    throw new Error(`SWITCHYARD_REVIEW_ROUTES is not JSON (${(e as Error).message}); write { "<workflow>": { "<state id>": { "assign": ["group"], "due": { "after_s": 86400, "escalate": ["group"] } } } }`);
  }
  const byId = new Map(builtIns.map((d) => [d.id, d]));
  const checked = RoutesSchema.superRefine((routes, ctx) => {
    for (const [workflow, states] of Object.entries(routes)) {
      const def = byId.get(workflow);
      if (!def) {
        ctx.addIssue({ code: "custom", path: [workflow], message: `not a built-in workflow (user workflows say assign and due in their review steps); built-in: ${[...byId.keys()].join(", ")}` });
        continue;
      }
      const reviewStates = reviewStatesOf(def);
      for (const state of Object.keys(states)) {
        if (!reviewStates.includes(state)) ctx.addIssue({ code: "custom", path: [workflow, state], message: `not a review state of ${workflow} (its review states: ${reviewStates.join(", ") || "none"})` });
      }
    }
  });
  const parsed = checked.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "(top)"}: ${i.message}`).join("; ");
    throw new Error(`SWITCHYARD_REVIEW_ROUTES is invalid: ${issues}`);
  }
  return parsed.data;
}

/** The route of a review state: the environment's for a built-in workflow, else what its step says (meta.review). */
export function routeOf(routes: ReviewRoutes, workflow: string, state: string, meta: StateMeta["review"] | undefined): ReviewRoute | null {
  const fromEnv = routes[workflow]?.[state];
  if (fromEnv) return fromEnv;
  if (!meta || (!meta.assign && !meta.due)) return null;
  return { ...(meta.assign ? { assign: meta.assign } : {}), ...(meta.due ? { due: meta.due } : {}) };
}
