// Request schemas and body readers of the knowledge API (/api/knowledge).
import { z } from "zod";
import { EngineError, isEngineError } from "../engine/errors";
import { DOC_TYPES, MAX_DOCUMENT_BYTES, resolveType, type FileImportResult, type KnowledgeStore } from "../knowledge/documents";
import { HttpError, parseJsonBody } from "./http";

/** A JSON import carries at most one document (2 MB) plus JSON escaping. */
export const MAX_JSON_IMPORT_BYTES = 3 * MAX_DOCUMENT_BYTES;
/** A multipart upload: up to MAX_UPLOAD_FILES files, this many bytes in all. */
export const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
export const MAX_UPLOAD_FILES = 50;

export const KnowledgeIdParam = z.object({ id: z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, "not a document id") });

export const KnowledgeQuery = z
  .object({
    q: z.string().max(1_000, "q is longer than 1,000 characters").optional(),
    limit: z.coerce.number().int().min(1).max(100).optional(),
    offset: z.coerce.number().int().min(0).max(10_000_000).optional(),
    documentId: KnowledgeIdParam.shape.id.optional(),
  })
  .strict();

export const ImportJsonBody = z
  .object({
    title: z.string().trim().max(300, "title is longer than 300 characters").optional(),
    source: z.string().trim().min(1, "source must not be empty").max(1_000).optional(),
    type: z.enum(DOC_TYPES).optional(),
    content: z.string({ error: "content is required (the document's text)" }),
  })
  .strict();
export type ImportJsonBody = z.infer<typeof ImportJsonBody>;

/** The paste form of the knowledge page. */
export const PasteForm = z.object({
  title: z.string().trim().max(300, "at most 300 characters").optional(),
  type: z.enum(DOC_TYPES).default("markdown"),
  text: z
    .string()
    .refine((t) => t.trim().length > 0, "paste some text")
    .refine((t) => Buffer.byteLength(t) <= MAX_DOCUMENT_BYTES, `larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MB`),
});

/** Source and type of a JSON import: a pasted text without either is Markdown from "pasted text". */
export function jsonImportInput(body: ImportJsonBody) {
  return {
    title: body.title || undefined,
    source: body.source ?? (body.title ? `pasted: ${body.title}` : "pasted text"),
    type: body.type ?? (body.source ? undefined : "markdown"),
    content: body.content,
  };
}

function declaredLength(req: Request): number {
  const n = Number(req.headers.get("content-length") ?? "0");
  return Number.isFinite(n) ? n : 0;
}

/** A JSON import body: 413 past MAX_JSON_IMPORT_BYTES, 400 when empty, malformed or too deeply nested. */
export async function readImportJson(req: Request): Promise<unknown> {
  const tooLarge = () => new HttpError(`request body is larger than ${MAX_JSON_IMPORT_BYTES} bytes (a document may have at most ${MAX_DOCUMENT_BYTES} bytes)`, 413, "too_large");
  if (declaredLength(req) > MAX_JSON_IMPORT_BYTES) throw tooLarge();
  let text: string;
  try {
    text = await req.text();
  } catch {
    throw new HttpError("could not read the request body", 400, "bad_body");
  }
  if (Buffer.byteLength(text) > MAX_JSON_IMPORT_BYTES) throw tooLarge();
  if (text.trim() === "") throw new HttpError("request body is empty; send a JSON object with content, or upload files as multipart/form-data", 400, "empty_body");
  return parseJsonBody(text);
}

/** The `file` fields of a multipart upload: 413 past MAX_UPLOAD_BYTES, 400 when unreadable, 422 when there are none. */
export async function readUploadFiles(req: Request): Promise<File[]> {
  if (declaredLength(req) > MAX_UPLOAD_BYTES) throw new HttpError(`upload is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB in all`, 413, "too_large");
  let form: FormData;
  try {
    form = await req.formData();
  } catch {
    throw new HttpError("could not read the multipart/form-data body", 400, "bad_body");
  }
  const values = form.getAll("file");
  if (values.some((v) => typeof v === "string")) throw new HttpError("every `file` field must be a file upload, not text", 422, "invalid");
  const files = values as File[];
  if (files.length === 0) throw new HttpError("no file uploaded: send one or more `file` fields", 422, "invalid");
  if (files.length > MAX_UPLOAD_FILES) throw new HttpError(`at most ${MAX_UPLOAD_FILES} files per upload (got ${files.length})`, 422, "invalid");
  const total = files.reduce((n, f) => n + f.size, 0);
  if (total > MAX_UPLOAD_BYTES) throw new HttpError(`upload is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB in all`, 413, "too_large");
  return files;
}

/** One uploaded file → a document, or the reason it was not imported (bad files never throw). */
export async function importUpload(store: KnowledgeStore, file: File): Promise<FileImportResult> {
  const name = file.name || "upload";
  try {
    if (file.size > MAX_DOCUMENT_BYTES) {
      throw new EngineError(`file is ${(file.size / 1024 / 1024).toFixed(1)} MB; the limit is ${MAX_DOCUMENT_BYTES / 1024 / 1024} MB`, 413, "too_large");
    }
    resolveType(name);
    const content = Buffer.from(await file.arrayBuffer());
    return { file: name, ok: true, ...(await store.importDocument({ source: name, content })) };
  } catch (e) {
    if (isEngineError(e)) return { file: name, ok: false, error: e.message, status: e.status, code: e.code };
    throw e;
  }
}
