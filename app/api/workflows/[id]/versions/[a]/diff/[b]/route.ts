import { handler, json, parse } from "@/lib/api/http";
import { VersionDiffParams, diffVersions } from "@/lib/change/migrate";

export const dynamic = "force-dynamic";

/** What changed between two versions: states and steps added, removed, changed. */
export const GET = handler(async (_req: Request, ctx: { params: Promise<{ id: string; a: string; b: string }> }) => {
  const { id, a, b } = parse(VersionDiffParams, await ctx.params);
  return json(diffVersions(id, a, b));
});
