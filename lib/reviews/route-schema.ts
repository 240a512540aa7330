// What a review route is (lib/reviews/routes.ts reads them): the schema alone, with no import of
// the workflow types, so that a step's schema (lib/steps/schema.ts) can take a `review:` route
// without closing a loop through the definitions that are built from steps.
import { z } from "zod";

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
