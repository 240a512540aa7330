import { handler, parse, query } from "@/lib/api/http";
import { ExportWorkflowQuery, exportWorkflow } from "@/lib/api/workflows";

/** Any workflow, built-in or user-defined, as Mermaid stateDiagram-v2 or as a JSON StateConfig. */
export const GET = handler(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = await ctx.params;
  const q = parse(ExportWorkflowQuery, query(req));
  const out = exportWorkflow(id, q.format);
  const headers: Record<string, string> = { "content-type": out.type };
  if (q.download === "1") headers["content-disposition"] = `attachment; filename="${out.filename}"`;
  return new Response(out.body, { headers });
});
