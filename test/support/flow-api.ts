// The routes tests of user-defined workflows call in process (test/user-workflows.test.ts,
// test/mermaid-runs.test.ts): a migrated database at `url`, the workflow, export, run and event
// route handlers, and the process-wide runtime they use.
import { migrateDatabase } from "../../lib/db/migrations";
import type { Runtime } from "../../lib/runtime";

export type Handler = (req: Request, ctx?: unknown) => Promise<Response>;

export interface FlowApi {
  workflows: { GET: Handler; POST: Handler };
  workflow: { GET: Handler };
  exporter: { GET: Handler };
  runs: { POST: Handler };
  events: { POST: Handler };
  rt: Runtime;
}

/** Migrate `url` (DATABASE_URL must already name it) and load the routes and the runtime. */
export async function flowApi(url: string): Promise<FlowApi> {
  await migrateDatabase(url);
  return {
    workflows: (await import("../../app/api/workflows/route")) as never,
    workflow: (await import("../../app/api/workflows/[id]/route")) as never,
    exporter: (await import("../../app/api/workflows/[id]/export/route")) as never,
    runs: (await import("../../app/api/runs/route")) as never,
    events: (await import("../../app/api/runs/[id]/events/route")) as never,
    rt: await (await import("../../lib/runtime")).getRuntime(),
  };
}

/** A POST request to `path` with a JSON body (or text, with its content type). */
export const post = (path: string, body: unknown, type = "application/json") =>
  new Request(`http://test${path}`, { method: "POST", body: typeof body === "string" ? body : JSON.stringify(body), headers: { "content-type": type } });

/** A route's second argument: its params. */
export const params = (o: Record<string, string>) => ({ params: Promise.resolve(o) });
