import { handler, json, parse, query } from "@/lib/api/http";
import { openApiDocument } from "@/lib/api/openapi/document";
import { NoQuery } from "@/lib/api/schemas";

/** The OpenAPI 3.1 description of every route under /api, made from the schemas the routes validate with. */
export const GET = handler(async (req: Request) => {
  parse(NoQuery, query(req));
  return json(openApiDocument(), 200, { "cache-control": "no-cache" });
});
