// Run export/import: one run (its row, transitions, reviews, timers, artifacts, model calls)
// as ONE JSON document, and that document loaded into another Switchyard instance for viewing.
//
// An imported run is read-only: its id carries the prefix `imported-` (lib/engine/imported.ts)
// and the engine never resumes, advances, aborts or decides such a run (409). Its status, state,
// context, history and reviews are stored exactly as exported; but nothing in it is live here: its
// pending reviews are not in the review queue and a run recorded as running or waiting is counted
// as `imported`, not as running (lib/engine/imported.ts). A run of a workflow this instance does
// not have is refused (400). No Next.js imports here.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Clock } from "../engine/clock";
import { failureStates, isRetry } from "../engine/draft";
import { ConflictError, InvalidError, NotFoundError, isEngineError } from "../engine/errors";
import { IMPORTED_PREFIX, isImportedRun } from "../engine/imported";
import type { RunBundle, RunRow, RunStore } from "../engine/store/types";
import { HttpError, parseJsonBody } from "./http";
import { findWorkflow, listWorkflows } from "../machines/registry";

export const EXPORT_FORMAT = "switchyard-run";
export const EXPORT_VERSION = 1;

/** What an import accepts. JSON values (context, snapshot, payloads) are bounded by the body size only. */
export const IMPORT_LIMITS = {
  /** the whole request body (an export can exceed the API's usual 1 MB) */
  bodyBytes: 50 * 1024 * 1024,
  /** run ids: leaves room for the `imported-` prefix and derived review / model-call ids within 200 */
  runIdChars: 150,
  idChars: 200,
  /** workflow ids, state ids, event types, review kinds, timer ids, artifact names, adapters */
  nameChars: 1_000,
  /** transition reasons, review prompts and feedback, model-call errors */
  textChars: 100_000,
  /** one artifact's content (characters; base64 text for binary content) */
  artifactChars: 20_000_000,
  transitions: 100_000,
  reviews: 10_000,
  timers: 10_000,
  artifacts: 5_000,
  usage: 100_000,
  children: 10_000,
} as const;

const L = IMPORT_LIMITS;

// ---------------------------------------------------------------------------- the document

const runId = z
  .string()
  .min(1)
  .max(L.runIdChars)
  .regex(/^[A-Za-z0-9_-]+$/, "not a run id (letters, digits, _ and - only)");
const id = z.string().min(1).max(L.idChars);
const name = z.string().min(1).max(L.nameChars);
const text = z.string().max(L.textChars);
const date = z.iso.datetime({ offset: true, message: "not an ISO 8601 date-time" });
const int = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const json = z.unknown();

const ExportedRun = z.strictObject({
  id: runId,
  workflow: name,
  status: z.enum(["running", "waiting", "completed", "failed", "aborted"]),
  state: z.array(name).max(1_000),
  snapshot: z.record(z.string(), json),
  context: json,
  input: json,
  output: json,
  error: json,
  entered: z.record(z.string().max(L.nameChars), z.number().finite()),
  version: int,
  seq: int,
  parentId: runId.nullable(),
  forkOf: runId.nullable().default(null),
  forkSeq: int.nullable().default(null),
  /** a replay or evaluation run: the run it replays, and how (lib/change) */
  replayOf: runId.nullable().default(null),
  replay: json.default(null),
  createdAt: date,
  updatedAt: date,
  finishedAt: date.nullable(),
  /** what the run is called (exports made before names were kept have none) */
  name: z.string().max(500).nullable().default(null),
});

const ExportedSnapshot = z.strictObject({
  seq: int,
  first: int,
  snapshot: z.record(z.string(), json),
  context: json,
  timers: z.array(z.strictObject({ id: name, dueAt: z.number().finite(), event: z.looseObject({ type: name }), seq: int })).max(1_000),
  at: date,
});

const ExportedTransition = z.strictObject({
  runId: runId,
  seq: int,
  from: z.array(name).max(1_000),
  to: z.array(name).max(1_000),
  event: name,
  reason: text,
  at: date,
  durationMs: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  payload: json,
});

const ExportedReview = z.strictObject({
  id,
  runId: runId,
  workflow: name,
  state: name,
  kind: name,
  prompt: text,
  payload: json,
  status: z.enum(["pending", "decided", "cancelled"]),
  decision: name.nullable(),
  feedback: text.nullable(),
  reviewer: name.nullable(),
  /** who decided: a person, or the engine (a replay); absent in exports made before it was kept */
  decidedBy: z.enum(["person", "engine"]).nullable().optional(),
  createdAt: date,
  decidedAt: date.nullable(),
  seq: int,
});

const ExportedTimer = z.strictObject({
  runId: runId,
  id: name,
  dueAt: date,
  event: z.looseObject({ type: name }),
  seq: int,
});

const ExportedArtifact = z.strictObject({
  name: name.refine((s) => !/[\u0000-\u001f]/.test(s), "artifact names have no control characters"),
  encoding: z.enum(["utf8", "base64"]).default("utf8"),
  content: z.string().max(L.artifactChars),
  size: int,
  updatedAt: date,
});

const ExportedModelCall = z.strictObject({
  id,
  key: z.string().max(L.nameChars).nullable(),
  runId: runId,
  state: name.nullable(),
  purpose: name,
  adapter: name,
  endpoint: name.nullable(),
  model: name.nullable(),
  promptTokens: int,
  completionTokens: int,
  estimated: z.boolean(),
  latencyMs: int,
  attempts: int,
  ok: z.boolean(),
  errorCategory: name.nullable(),
  error: text.nullable(),
  output: z.string().max(L.artifactChars).nullable(),
  createdAt: date,
});

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function unique<T>(items: T[], key: (t: T) => string, path: string, what: string, ctx: z.RefinementCtx) {
  const seen = new Set<string>();
  items.forEach((t, i) => {
    const k = key(t);
    if (seen.has(k)) ctx.addIssue({ code: "custom", path: [path, i], message: `duplicate ${what} ${JSON.stringify(k)}` });
    seen.add(k);
  });
}

export const RunExportDoc = z
  .strictObject({
    format: z.literal(EXPORT_FORMAT),
    version: z.literal(EXPORT_VERSION),
    exportedAt: date,
    run: ExportedRun,
    transitions: z.array(ExportedTransition).max(L.transitions),
    reviews: z.array(ExportedReview).max(L.reviews),
    /** the run after each commit (exports written before snapshots were kept have none) */
    snapshots: z.array(ExportedSnapshot).max(L.transitions).default([]),
    timers: z.array(ExportedTimer).max(L.timers),
    artifacts: z.array(ExportedArtifact).max(L.artifacts),
    usage: z.array(ExportedModelCall).max(L.usage),
    children: z.array(runId).max(L.children),
  })
  .superRefine((doc, ctx) => {
    const rid = doc.run.id;
    const mismatch = (path: string, i: number, got: string) =>
      ctx.addIssue({ code: "custom", path: [path, i, "runId"], message: `belongs to run ${JSON.stringify(got)}, not to the exported run ${JSON.stringify(rid)}` });
    doc.transitions.forEach((t, i) => {
      if (t.runId !== rid) mismatch("transitions", i, t.runId);
      if (t.seq !== i + 1) ctx.addIssue({ code: "custom", path: ["transitions", i, "seq"], message: `expected seq ${i + 1}, got ${t.seq}: seq must run 1, 2, 3, … in order, without gaps or duplicates` });
    });
    if (doc.run.seq !== doc.transitions.length) {
      ctx.addIssue({ code: "custom", path: ["run", "seq"], message: `is ${doc.run.seq} but the export has ${doc.transitions.length} transitions` });
    }
    doc.reviews.forEach((r, i) => {
      if (r.runId !== rid) mismatch("reviews", i, r.runId);
      if (r.seq > doc.run.seq) ctx.addIssue({ code: "custom", path: ["reviews", i, "seq"], message: `${r.seq} is after the run's last transition (${doc.run.seq})` });
    });
    doc.timers.forEach((t, i) => {
      if (t.runId !== rid) mismatch("timers", i, t.runId);
      if (t.seq > doc.run.seq) ctx.addIssue({ code: "custom", path: ["timers", i, "seq"], message: `${t.seq} is after the run's last transition (${doc.run.seq})` });
    });
    doc.usage.forEach((u, i) => {
      if (u.runId !== rid) mismatch("usage", i, u.runId);
    });
    doc.artifacts.forEach((a, i) => {
      if (a.encoding === "base64" && !BASE64.test(a.content)) ctx.addIssue({ code: "custom", path: ["artifacts", i, "content"], message: "is not valid base64" });
    });
    unique(doc.reviews, (r) => r.id, "reviews", "review id", ctx);
    unique(doc.timers, (t) => t.id, "timers", "timer id", ctx);
    unique(doc.artifacts, (a) => a.name, "artifacts", "artifact name", ctx);
    unique(doc.usage, (u) => u.id, "usage", "model call id", ctx);
  })
  .meta({ id: "RunExport", description: "A run as one JSON document (format switchyard-run, version 1)." });

export type RunExport = z.input<typeof RunExportDoc>;
type ParsedExport = z.output<typeof RunExportDoc>;

// ---------------------------------------------------------------------------- export

/** what export and import need of the runtime: its run store (and clock, for exportedAt) */
type Ports = { store: Pick<RunStore, "archive">; clock: Clock };

/** a timer's event always has a type (the engine arms them from XState's delayed events) */
type TimerEvent = { id: string; dueAt: number; event: { type: string }; seq: number };
const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : iso(ms));
const utf8 = new TextDecoder("utf-8", { fatal: true });

function artifactContent(v: string | Buffer): { encoding: "utf8" | "base64"; content: string } {
  if (typeof v === "string") return { encoding: "utf8", content: v };
  try {
    return { encoding: "utf8", content: utf8.decode(v) };
  } catch {
    return { encoding: "base64", content: v.toString("base64") };
  }
}

/** The stored rows as the document's body (dates as ISO text, binary artifacts as base64). */
function exportBody({ run: r, transitions, reviews, snapshots, timers, artifacts, usage, children }: RunBundle): Omit<RunExport, "format" | "version" | "exportedAt"> {
  return {
    run: {
      id: r.id,
      workflow: r.workflow,
      status: r.status,
      state: r.state,
      snapshot: r.snapshot,
      context: r.context,
      input: r.input,
      output: r.output,
      error: r.error,
      entered: r.entered,
      version: r.version,
      seq: r.seq,
      parentId: r.parentId,
      forkOf: r.forkOf,
      forkSeq: r.forkSeq,
      // (only a replay carries them: other exports read as before)
      ...(r.replayOf ? { replayOf: r.replayOf, replay: r.replay ?? null } : {}),
      createdAt: iso(r.createdAt),
      updatedAt: iso(r.updatedAt),
      finishedAt: isoOrNull(r.finishedAt),
      name: r.name,
    },
    transitions: transitions.map((t) => ({ ...t, at: iso(t.at) })),
    reviews: reviews.map((v) => ({
      id: v.id,
      runId: v.runId,
      workflow: v.workflow,
      state: v.state,
      kind: v.kind,
      prompt: v.prompt,
      payload: v.payload,
      status: v.status,
      decision: v.decision,
      feedback: v.feedback,
      reviewer: v.reviewer,
      decidedBy: v.decidedBy ?? null,
      createdAt: iso(v.createdAt),
      decidedAt: isoOrNull(v.decidedAt),
      seq: v.seq,
    })),
    snapshots: snapshots.map((x) => ({ ...x, timers: x.timers as TimerEvent[], at: iso(x.at) })),
    timers: timers.map((t) => ({ ...t, event: t.event as TimerEvent["event"], dueAt: iso(t.dueAt) })),
    artifacts: artifacts.map((a) => ({ name: a.name, ...artifactContent(a.content), size: a.size, updatedAt: iso(a.updatedAt) })),
    usage: usage.map((m) => ({ ...m, createdAt: iso(m.createdAt) })),
    children,
  };
}

/** The run as one export document (404 for an unknown run). Read in one transaction: a consistent snapshot. */
export async function exportRun(rt: Ports, id: string): Promise<RunExport> {
  const bundle = await rt.store.archive.exportRun(id);
  if (!bundle) throw new NotFoundError(`run ${id} not found`);
  return { format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: new Date(rt.clock.now()).toISOString(), ...exportBody(bundle) };
}

/** The export as file text: pretty-printed, keys in a fixed order, a final newline. */
export function exportText(doc: RunExport): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

// ---------------------------------------------------------------------------- import

export interface ImportOptions {
  /** import under a fresh id (`imported-<uuid>`) instead of `imported-<original id>` */
  asNew?: boolean;
}

export interface ImportResult {
  id: string;
  originalId: string;
  transitions: number;
  reviews: number;
  timers: number;
  artifacts: number;
  usage: number;
}

/** The id a run gets here: `imported-<original>` (kept as is when already imported), or a fresh one. */
export function importedId(originalId: string, asNew = false): string {
  if (asNew) return `${IMPORTED_PREFIX}${randomUUID()}`;
  return isImportedRun(originalId) ? originalId : `${IMPORTED_PREFIX}${originalId}`;
}

function describeIssues(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  const shown = issues.slice(0, 10).map((i) => `${i.path.map(String).join(".") || "document"}: ${i.message}`);
  const more = issues.length > shown.length ? `; … and ${issues.length - shown.length} more` : "";
  return `${shown.join("; ")}${more}`;
}

/** Validate an export document: 422 with what is wrong (the first ten problems). */
export function parseExport(raw: unknown): ParsedExport {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new InvalidError("not a Switchyard run export: expected a JSON object");
  const head = raw as { format?: unknown; version?: unknown };
  if (head.format !== EXPORT_FORMAT) {
    throw new InvalidError(`not a Switchyard run export: format must be "${EXPORT_FORMAT}" (got ${head.format === undefined ? "none" : JSON.stringify(head.format)?.slice(0, 100)})`);
  }
  if (head.version !== EXPORT_VERSION) {
    throw new InvalidError(`unsupported export version ${JSON.stringify(head.version)?.slice(0, 50)}: this instance reads version ${EXPORT_VERSION}`);
  }
  const parsed = RunExportDoc.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues;
    throw new InvalidError(`invalid run export: ${describeIssues(issues)}`, issues.slice(0, 50).map((i) => ({ path: i.path.map(String).join("."), message: i.message })));
  }
  return parsed.data;
}

/**
 * The columns the engine keeps as it commits, derived from the document the same way, so that an
 * imported run answers the runs list's filters (retrying, waiting longer than, failed in) as the
 * original did.
 */
function derivedColumns(doc: ParsedExport): Pick<RunRow, "retries" | "waitingSince" | "failedStates"> {
  const retries = doc.transitions.filter((t) => isRetry(t.event, t.reason)).length;
  const open = doc.run.status === "running" || doc.run.status === "waiting"; // a finished run waits for no one
  const pending = open ? doc.reviews.filter((v) => v.status === "pending").map((v) => Date.parse(v.createdAt)) : [];
  const waitingSince = pending.length ? Math.min(...pending) : null;
  const last = doc.transitions.reduce<ParsedExport["transitions"][number] | null>((a, t) => (a && a.seq > t.seq ? a : t), null);
  const failedStates = doc.run.status === "failed" ? failureStates(doc.run.error, last?.from ?? [], doc.run.state) : null;
  return { retries, waitingSince, failedStates };
}

const ms = (isoDate: string) => Date.parse(isoDate);
const msOrNull = (isoDate: string | null) => (isoDate === null ? null : ms(isoDate));

/**
 * The document as the rows of a new run `id`: review and model-call ids derived from it (they are
 * unique per database), model-call journal keys dropped (an imported run never replays a call),
 * the parent, fork source and replayed run given the `imported-` prefix too (so that they never
 * point at an unrelated run of this instance), no schedule (one of the exporting server starts
 * nothing here), base64 artifacts as their bytes.
 */
function bundleOf(doc: ParsedExport, id: string): RunBundle {
  const r = doc.run;
  return {
    run: {
      ...r,
      id,
      parentId: r.parentId === null ? null : importedId(r.parentId),
      forkOf: r.forkOf === null ? null : importedId(r.forkOf),
      replayOf: r.replayOf === null ? null : importedId(r.replayOf),
      replay: (r.replay ?? null) as RunRow["replay"],
      scheduleId: null,
      ...derivedColumns(doc),
      createdAt: ms(r.createdAt),
      updatedAt: ms(r.updatedAt),
      finishedAt: msOrNull(r.finishedAt),
    },
    transitions: doc.transitions.map((t) => ({ ...t, runId: id, at: ms(t.at) })),
    reviews: doc.reviews.map((v, i) => ({ ...v, id: `${id}-review-${i + 1}`, runId: id, createdAt: ms(v.createdAt), decidedAt: msOrNull(v.decidedAt) })),
    snapshots: doc.snapshots.map((x) => ({ ...x, at: ms(x.at) })),
    timers: doc.timers.map((t) => ({ ...t, runId: id, dueAt: ms(t.dueAt) })),
    artifacts: doc.artifacts.map((a) => ({ name: a.name, content: a.encoding === "base64" ? Buffer.from(a.content, "base64") : a.content, size: a.size, updatedAt: ms(a.updatedAt) })),
    usage: doc.usage.map((u, i) => ({ ...u, id: `${id}-call-${i + 1}`, key: null, runId: id, createdAt: ms(u.createdAt) })),
    children: [],
  };
}

/**
 * Store an export document as a read-only run: everything in one transaction (a failed import
 * leaves nothing behind). 409 when the run was imported before (unless `asNew`) or a row collides
 * with one already here; 422 for content this database cannot keep.
 */
export async function importRun(rt: Pick<Ports, "store">, raw: unknown, opts: ImportOptions = {}): Promise<ImportResult> {
  const doc = parseExport(raw);
  // a run of a workflow this instance does not have could not even be shown (its page is a 404)
  if (!findWorkflow(doc.run.workflow, doc.run.input)) {
    throw new HttpError(`cannot import run ${doc.run.id}: unknown workflow "${doc.run.workflow}" (this instance has: ${listWorkflows().map((w) => w.id).join(", ")})`, 400, "unknown_workflow");
  }
  const originalId = doc.run.id;
  const newId = importedId(originalId, opts.asNew);
  const out = await rt.store.archive.importRun(bundleOf(doc, newId));
  if (!out.ok) {
    if (out.reason === "exists") throw new ConflictError(`run ${newId} already exists: this run was imported before (import with ?as=new to keep another copy)`, { id: newId, originalId });
    if (out.reason === "constraint") throw new ConflictError(`run ${newId} could not be imported: ${out.message}`, { id: newId, originalId });
    if (out.path) throw new InvalidError(`invalid run export: ${out.path}: ${out.message}`, [{ path: out.path, message: out.message }]);
    throw new InvalidError(`run ${newId} could not be imported: ${out.message}`);
  }
  return { id: newId, originalId, transitions: doc.transitions.length, reviews: doc.reviews.length, timers: doc.timers.length, artifacts: doc.artifacts.length, usage: doc.usage.length };
}

// ---------------------------------------------------------------------------- request body

/**
 * Read a JSON request body of up to `limit` bytes (the API's readJson stops at 1 MB; an export
 * is often bigger). 415 for a non-JSON content type, 413 above the limit (checked while
 * streaming, so an oversized body is never held whole), 400 when empty, malformed or nested
 * deeper than MAX_JSON_DEPTH.
 */
export async function readLargeJson(req: Request, limit: number = L.bodyBytes): Promise<unknown> {
  const type = req.headers.get("content-type") ?? "";
  if (type && !/\bjson\b/i.test(type)) throw new HttpError(`content-type must be application/json (got ${type.split(";")[0]})`, 415, "unsupported_media_type");
  const tooLarge = () => new HttpError(`request body is larger than ${limit} bytes`, 413, "too_large");
  if (Number(req.headers.get("content-length") ?? "0") > limit) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let total = 0;
  if (req.body) {
    const reader = req.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > limit) {
          await reader.cancel().catch(() => {});
          throw tooLarge();
        }
        chunks.push(value);
      }
    } catch (e) {
      if (isEngineError(e)) throw e;
      throw new HttpError("could not read the request body", 400, "bad_body");
    }
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") throw new HttpError("request body is empty; send a run export (JSON)", 400, "empty_body");
  return parseJsonBody(text);
}
