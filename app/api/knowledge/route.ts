import { handler, HttpError, json, parse, query } from "@/lib/api/http";
import { ImportJsonBody, importUpload, jsonImportInput, KnowledgeQuery, readImportJson, readUploadFiles } from "@/lib/api/knowledge";
import { knowledgeStore } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** With q: ranked hits `{ query, method, hits, tookMs }`; without: `{ documents, total }`. */
export const GET = handler(async (req: Request) => {
  const q = parse(KnowledgeQuery, query(req));
  const store = await knowledgeStore();
  if (q.q !== undefined && q.q.trim() !== "") {
    return json(await store.searchDetailed(q.q, { limit: q.limit, documentId: q.documentId }));
  }
  return json(await store.list({ limit: q.limit, offset: q.offset }));
});

/**
 * Import: JSON `{ title?, source?, type?, content }` → 201 `{ document, chunks, duplicate, embedded }`;
 * multipart/form-data with `file` fields → 201 `{ results: [...] }` (per file), or the failure's
 * status when no file could be imported.
 */
export const POST = handler(async (req: Request) => {
  const type = (req.headers.get("content-type") ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) {
    const files = await readUploadFiles(req);
    const store = await knowledgeStore();
    const results = [];
    for (const f of files) results.push(await importUpload(store, f));
    const failed = results.filter((r) => !r.ok);
    const body = { results, imported: results.length - failed.length, failed: failed.length };
    if (failed.length < results.length) return json(body, 201);
    const statuses = new Set(failed.map((r) => (r.ok ? 0 : r.status)));
    const status = statuses.size === 1 ? [...statuses][0] : 422;
    const first = failed[0];
    const reason = first && !first.ok ? `${first.file}: ${first.error}` : "";
    return json({ error: `no file was imported (${reason}${failed.length > 1 ? `, and ${failed.length - 1} more` : ""})`, code: "import_failed", ...body }, status);
  }
  if (type && !/\bjson\b/.test(type)) {
    throw new HttpError(`content-type must be application/json or multipart/form-data (got ${type.split(";")[0]})`, 415, "unsupported_media_type");
  }
  const body = parse(ImportJsonBody, await readImportJson(req));
  const store = await knowledgeStore();
  const result = await store.importDocument(jsonImportInput(body));
  return json(result, 201, { location: `/api/knowledge/${result.document.id}` });
});
