import { z } from "zod";
import { handler, json, parse, principalOf, readJson } from "@/lib/api/http";
import { MigrateBody, migrateRuns } from "@/lib/change/migrate";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

const Params = z.object({ id: z.string().min(1).max(100).regex(/^[A-Za-z0-9._-]+$/, "not a workflow id") });

/** Move waiting runs from one version to another: { dryRun, results: [{ runId, from, to, ok, reason? }] }. */
export const POST = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(Params, await ctx.params);
  const body = parse(MigrateBody, await readJson(req));
  return json(await migrateRuns(await getRuntime(), id, body, principalOf(req)?.name ?? "the API"));
});
