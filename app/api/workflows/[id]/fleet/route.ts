import { handler, json, parse, query } from "@/lib/api/http";
import { FleetQuery, fleetOf } from "@/lib/fleet/fleet";
import { WorkflowIdParam } from "@/lib/api/workflows";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** Where the workflow's runs are now and what they did in the window, per state (docs/guide/25-fleet.md). */
export const GET = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(WorkflowIdParam, await ctx.params);
  const q = parse(FleetQuery, query(req));
  return json(await fleetOf(await getRuntime(), id, q));
});
