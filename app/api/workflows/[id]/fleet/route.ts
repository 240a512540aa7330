import { z } from "zod";
import { handler, json, parse, query } from "@/lib/api/http";
import { FleetQuery, fleetOf } from "@/lib/fleet/fleet";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

const Params = z.object({ id: z.string().min(1).max(100).regex(/^[A-Za-z0-9._-]+$/, "not a workflow id") });

/** Where the workflow's runs are now and what they did in the window, per state (docs/guide/22-fleet.md). */
export const GET = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(Params, await ctx.params);
  const q = parse(FleetQuery, query(req));
  return json(await fleetOf(await getRuntime(), id, q));
});
