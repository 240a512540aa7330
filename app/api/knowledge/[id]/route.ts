import { handler, json, parse } from "@/lib/api/http";
import { KnowledgeIdParam } from "@/lib/api/knowledge";
import { knowledgeStore } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** A document with its chunks (in order). */
export const GET = handler(async (_req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(KnowledgeIdParam, await ctx.params);
  return json(await (await knowledgeStore()).get(id));
});

/** Delete a document and its chunks; they leave the search index at once. */
export const DELETE = handler(async (_req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const { id } = parse(KnowledgeIdParam, await ctx.params);
  await (await knowledgeStore()).delete(id);
  return new Response(null, { status: 204 });
});
