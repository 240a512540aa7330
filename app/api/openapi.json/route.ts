import { handler, json } from "@/lib/api/http";
import { openApiDocument } from "@/lib/api/openapi/document";

/** The OpenAPI 3.1 description of every route under /api, made from the schemas the routes validate with. */
export const GET = handler(async () => json(openApiDocument(), 200, { "cache-control": "no-cache" }));
