// A static segment: Next.js matches /api/runs/import here before the dynamic /api/runs/[id].
import { handler, json, parse, query } from "@/lib/api/http";
import { RunImportQuery } from "@/lib/api/schemas";
import { importRun, readLargeJson } from "@/lib/api/run-export";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/**
 * Import a run export (up to 50 MB) as a read-only run `imported-<original id>` (`?as=new`:
 * `imported-<uuid>`). 201 with `{ id, originalId, transitions, reviews, timers, artifacts, usage }`;
 * 409 when already imported, 422 for an invalid document, 413 above the size limit.
 */
export const POST = handler(async (req: Request) => {
  const q = parse(RunImportQuery, query(req));
  const doc = await readLargeJson(req);
  const out = await importRun(await getRuntime(), doc, { asNew: q.as === "new" });
  return json(out, 201, { location: `/api/runs/${out.id}` });
});
