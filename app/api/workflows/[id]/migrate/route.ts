import { handler, json, parse, principalOf, readJson } from "@/lib/api/http";
import { MigrateBody, MigrateParams, migrateRuns } from "@/lib/change/migrate";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** Move waiting runs from one version to another: { dryRun, results: [{ runId, from, to, ok, reason? }] }. */
export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(MigrateParams, await ctx.params);
  const body = parse(MigrateBody, await readJson(req));
  return json(await migrateRuns(await getRuntime(), id, body, principalOf(req)?.name ?? "the API"));
});
