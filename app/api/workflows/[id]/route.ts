import { handler, json } from "@/lib/api/http";
import { describeWorkflow } from "@/lib/api/workflows";

export const GET = handler(async (_req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = await ctx.params;
  return json(describeWorkflow(id));
});
