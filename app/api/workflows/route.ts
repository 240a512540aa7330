import { handler, json, parse, query, readJson } from "@/lib/api/http";
import { checkWorkflow, createWorkflow, CreateWorkflowBody, CreateWorkflowQuery, workflowSummaries } from "@/lib/api/workflows";
import { getRuntime } from "@/lib/runtime";
import { warmLayouts } from "@/lib/graph";

export const GET = handler(async () => json({ workflows: await workflowSummaries(await getRuntime()) }));

/**
 * Define a workflow from Mermaid, JSON or YAML: 201 with its description, 422 with line-numbered
 * issues. `?dryRun=true`: 200 `{ dryRun, valid, id, errors, warnings }`, nothing saved.
 */
export const POST = handler(async (req: Request) => {
  const q = parse(CreateWorkflowQuery, query(req));
  const body = parse(CreateWorkflowBody, await readJson(req));
  if (q.dryRun === "true" || q.dryRun === "1") return json(checkWorkflow(body));
  const out = await createWorkflow(await getRuntime(), body);
  // its diagram's layouts are made now, in the layout thread, so its page draws at once
  if (out.created) void warmLayouts([out.id]);
  return json(out, out.created ? 201 : 200);
});
