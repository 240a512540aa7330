import { handler, json, parse, query, readJson } from "@/lib/api/http";
import { DeleteWorkflowQuery, deleteWorkflow, patchWorkflow, PatchWorkflowBody, workflowDescription, WorkflowIdParam } from "@/lib/api/workflows";
import { getRuntime } from "@/lib/runtime";

type Ctx = { params: Promise<{ id: string }> };

export const GET = handler(async (_req: Request, ctx: Ctx) => {
  const { id } = await ctx.params;
  return json(await workflowDescription(await getRuntime(), id));
});

/** { disabled: true | false } (admin): a disabled workflow starts no new runs and leaves the New-run form. */
export const PATCH = handler(async (req: Request, ctx: Ctx) => {
  const { id } = parse(WorkflowIdParam, await ctx.params);
  const body = parse(PatchWorkflowBody, await readJson(req));
  return json(await patchWorkflow(await getRuntime(), id, body));
});

/** Delete a user-defined workflow (admin): 409 while runs are open unless ?force=true; the id stays as a tombstone. */
export const DELETE = handler(async (req: Request, ctx: Ctx) => {
  const { id } = parse(WorkflowIdParam, await ctx.params);
  const q = parse(DeleteWorkflowQuery, query(req));
  return json(await deleteWorkflow(await getRuntime(), id, { force: q.force === "true" }));
});
