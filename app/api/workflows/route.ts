import { handler, json, parse, readJson } from "@/lib/api/http";
import { createWorkflow, CreateWorkflowBody, workflowSummaries } from "@/lib/api/workflows";
import { getRuntime } from "@/lib/runtime";
import { warmLayouts } from "@/lib/graph";

export const GET = handler(async () => json({ workflows: await workflowSummaries(await getRuntime()) }));

/** Define a workflow from Mermaid, JSON or YAML: 201 with its description, 422 with line-numbered issues. */
export const POST = handler(async (req: Request) => {
  const body = parse(CreateWorkflowBody, await readJson(req));
  const out = await createWorkflow(await getRuntime(), body);
  // its diagram's layouts are made now, in the layout thread, so its page draws at once
  if (out.created) void warmLayouts([out.id]);
  return json(out, out.created ? 201 : 200);
});
