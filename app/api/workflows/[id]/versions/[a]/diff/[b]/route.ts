import { z } from "zod";
import { handler, json, parse } from "@/lib/api/http";
import { diffVersions } from "@/lib/change/migrate";

export const dynamic = "force-dynamic";

const version = z.coerce.number({ error: "a version is a number" }).int("a version is a whole number").min(1, "versions start at 1");
const Params = z.object({ id: z.string().min(1).max(100).regex(/^[A-Za-z0-9._-]+$/, "not a workflow id"), a: version, b: version });

/** What changed between two versions: states and steps added, removed, changed. */
export const GET = handler(async (_req: Request, ctx: { params: Promise<{ id: string; a: string; b: string }> }) => {
  const { id, a, b } = parse(Params, await ctx.params);
  return json(diffVersions(id, a, b));
});
