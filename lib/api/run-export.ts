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
import { byteOrder, dbBool, dbDate, dialectOf, isConstraintError, msOf, readAll, writeAll, type Dialect, type SqlPorts, type Stmt } from "../db/sql";
import type { Clock } from "../engine/clock";
import { failureStates, isRetry } from "../engine/draft";
import { ConflictError, InvalidError, NotFoundError, isEngineError } from "../engine/errors";
import { IMPORTED_PREFIX, isImportedRun } from "../engine/imported";
import { ARTIFACT_COLS, insertTransitionsSql, openReviewsSql, RUN_FROM, RUN_INSERT, RUN_SELECT, SNAPSHOT_COLS, TIMER_COLS, timersJson } from "../engine/store/rows";
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

type Row = Record<string, unknown>;
/** the runtime's database (rt.sqlite or rt.pg) and clock */
type Ports = SqlPorts & { clock: Clock };

const parseJson = (v: unknown) => (v === null || v === undefined ? null : JSON.parse(String(v)));
const num = (v: unknown) => (typeof v === "bigint" ? Number(v) : Number(v));
const iso = (v: unknown) => new Date(msOf(v)).toISOString();
const isoOrNull = (v: unknown) => (v === null || v === undefined ? null : iso(v));
const str = (v: unknown) => (v === null || v === undefined ? null : String(v));
const utf8 = new TextDecoder("utf-8", { fatal: true });

function artifactContent(v: unknown): { encoding: "utf8" | "base64"; content: string } {
  if (typeof v === "string") return { encoding: "utf8", content: v };
  const buf = Buffer.isBuffer(v) ? v : Buffer.from(String(v ?? ""));
  try {
    return { encoding: "utf8", content: utf8.decode(buf) };
  } catch {
    return { encoding: "base64", content: buf.toString("base64") };
  }
}

/** The statements of an export, in document order (text sort keys in byte order on both databases). */
function exportQueries(d: Dialect, runIdValue: string): Stmt[] {
  const c = byteOrder(d);
  const args = [runIdValue];
  return [
    `SELECT ${RUN_SELECT} FROM ${RUN_FROM} WHERE r."id" = ?`,
    `SELECT * FROM "Transition" WHERE "runId" = ? ORDER BY "seq"`,
    `SELECT * FROM "Review" WHERE "runId" = ? ORDER BY "seq", "createdAt", "id"${c}`,
    `SELECT * FROM "Snapshot" WHERE "runId" = ? ORDER BY "seq"`,
    `SELECT * FROM "Timer" WHERE "runId" = ? ORDER BY "dueAt", "id"${c}`,
    `SELECT * FROM "Artifact" WHERE "runId" = ? ORDER BY "name"${c}`,
    `SELECT * FROM "ModelCall" WHERE "runId" = ? ORDER BY "createdAt", "id"${c}`,
    `SELECT "id" FROM "Run" WHERE "parentId" = ? ORDER BY "createdAt", "id"${c}`,
  ].map((sql) => ({ sql, args }));
}

function exportBody([[r], transitions, reviews, snapshots, timers, artifacts, usage, children]: Row[][]): Omit<RunExport, "format" | "version" | "exportedAt"> | null {
  if (!r) return null;
  return {
    run: {
      id: String(r.id),
      workflow: String(r.workflow),
      status: r.status as ParsedExport["run"]["status"],
      state: parseJson(r.state),
      snapshot: parseJson(r.snapshot),
      context: parseJson(r.context),
      input: parseJson(r.input),
      output: parseJson(r.output),
      error: parseJson(r.error),
      entered: parseJson(r.entered),
      version: num(r.version),
      seq: num(r.seq),
      parentId: str(r.parentId),
      forkOf: str(r.forkOf),
      forkSeq: r.forkSeq === null || r.forkSeq === undefined ? null : num(r.forkSeq),
      // (only a replay carries them: other exports read as before)
      ...(r.replayOf ? { replayOf: str(r.replayOf), replay: parseJson(r.replay) } : {}),
      createdAt: iso(r.createdAt),
      updatedAt: iso(r.updatedAt),
      finishedAt: isoOrNull(r.finishedAt),
      name: str(r.name),
    },
    transitions: transitions.map((t) => ({
      runId: String(t.runId),
      seq: num(t.seq),
      from: parseJson(t.from),
      to: parseJson(t.to),
      event: String(t.event),
      reason: String(t.reason),
      at: iso(t.at),
      durationMs: num(t.durationMs),
      payload: parseJson(t.payload),
    })),
    reviews: reviews.map((v) => ({
      id: String(v.id),
      runId: String(v.runId),
      workflow: String(v.workflow),
      state: String(v.state),
      kind: String(v.kind),
      prompt: String(v.prompt),
      payload: parseJson(v.payload),
      status: v.status as ParsedExport["reviews"][number]["status"],
      decision: str(v.decision),
      feedback: str(v.feedback),
      reviewer: str(v.reviewer),
      createdAt: iso(v.createdAt),
      decidedAt: isoOrNull(v.decidedAt),
      seq: num(v.seq),
    })),
    snapshots: snapshots.map((x) => ({
      seq: num(x.seq),
      first: num(x.first),
      snapshot: parseJson(x.snapshot),
      context: parseJson(x.context),
      timers: parseJson(x.timers) ?? [],
      at: iso(x.at),
    })),
    timers: timers.map((t) => ({
      runId: String(t.runId),
      id: String(t.id),
      dueAt: iso(t.dueAt),
      event: parseJson(t.event),
      seq: num(t.seq),
    })),
    artifacts: artifacts.map((a) => ({
      name: String(a.name),
      ...artifactContent(a.content),
      size: num(a.size),
      updatedAt: iso(a.updatedAt),
    })),
    usage: usage.map((m) => ({
      id: String(m.id),
      key: str(m.key),
      runId: String(m.runId),
      state: str(m.state),
      purpose: String(m.purpose),
      adapter: String(m.adapter),
      endpoint: str(m.endpoint),
      model: str(m.model),
      promptTokens: num(m.promptTokens),
      completionTokens: num(m.completionTokens),
      estimated: Boolean(num(m.estimated)), // 0/1 on SQLite, a boolean on PostgreSQL
      latencyMs: num(m.latencyMs),
      attempts: num(m.attempts),
      ok: Boolean(num(m.ok)),
      errorCategory: str(m.errorCategory),
      error: str(m.error),
      output: str(m.output),
      createdAt: iso(m.createdAt),
    })),
    children: children.map((c) => String(c.id)),
  };
}

/** The run as one export document (404 for an unknown run). Read in one transaction: a consistent snapshot. */
export async function exportRun(rt: Ports, id: string): Promise<RunExport> {
  const body = exportBody(await readAll(rt, exportQueries(dialectOf(rt), id)));
  if (!body) throw new NotFoundError(`run ${id} not found`);
  return { format: EXPORT_FORMAT, version: EXPORT_VERSION, exportedAt: new Date(rt.clock.now()).toISOString(), ...body };
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

const dbJson = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/**
 * An artifact's content as stored: text as text; base64 content as the bytes it was on SQLite (a
 * BLOB). PostgreSQL keeps artifacts as TEXT (no NUL character): there, bytes that are UTF-8 text go
 * in as that text and anything else is refused (422) rather than altered.
 */
function artifactValue(d: Dialect, a: ParsedExport["artifacts"][number], i: number): string | Buffer {
  if (a.encoding === "base64") {
    const bytes = Buffer.from(a.content, "base64");
    if (d === "sqlite") return bytes;
    let text: string | null = null;
    try {
      text = utf8.decode(bytes);
    } catch {
      // not UTF-8
    }
    if (text !== null && !text.includes("\u0000")) return text;
  } else if (d === "sqlite" || !a.content.includes("\u0000")) return a.content;
  const message = "binary content (or a NUL character) cannot be stored here: this instance keeps artifacts as text on PostgreSQL";
  throw new InvalidError(`invalid run export: artifacts.${i}.content: ${message} (artifact ${JSON.stringify(a.name)})`, [{ path: `artifacts.${i}.content`, message }]);
}

/**
 * The columns the engine keeps as it commits, derived from the document the same way, so that an
 * imported run answers the runs list's filters (retrying, waiting longer than, failed in) as the
 * original did.
 */
function derivedColumns(doc: ParsedExport): { retries: number; waitingSince: string | null; failedStates: string | null } {
  const retries = doc.transitions.filter((t) => isRetry(t.event, t.reason)).length;
  const open = doc.run.status === "running" || doc.run.status === "waiting"; // a finished run waits for no one
  const pending = open ? doc.reviews.filter((v) => v.status === "pending").map((v) => v.createdAt) : [];
  const waitingSince = pending.length ? pending.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b)) : null;
  const last = doc.transitions.reduce<ParsedExport["transitions"][number] | null>((a, t) => (a && a.seq > t.seq ? a : t), null);
  const failedStates = doc.run.status === "failed" ? failureStates(doc.run.error, last?.from ?? [], doc.run.state) : null;
  return { retries, waitingSince, failedStates };
}

/** PostgreSQL refuses NUL characters (and bytes that are no UTF-8) in text. */
const isUnstorableText = (e: unknown) => ["22021", "22P05"].includes(String((e as { code?: unknown })?.code));

/**
 * Store an export document as a read-only run: everything in one transaction (a failed import
 * leaves nothing behind). 409 when the run was imported before (unless `asNew`).
 * Review and model-call ids are derived from the new run id (they are unique per database);
 * model-call journal keys are dropped (an imported run never replays a call); the parent id
 * gets the `imported-` prefix too, so that it never points at an unrelated run of this instance.
 */
export async function importRun(rt: SqlPorts, raw: unknown, opts: ImportOptions = {}): Promise<ImportResult> {
  const doc = parseExport(raw);
  // a run of a workflow this instance does not have could not even be shown (its page is a 404)
  if (!findWorkflow(doc.run.workflow, doc.run.input)) {
    throw new HttpError(`cannot import run ${doc.run.id}: unknown workflow "${doc.run.workflow}" (this instance has: ${listWorkflows().map((w) => w.id).join(", ")})`, 400, "unknown_workflow");
  }
  const originalId = doc.run.id;
  const newId = importedId(originalId, opts.asNew);
  const d = dialectOf(rt);
  const date = (isoDate: string) => dbDate(d, Date.parse(isoDate));
  const dateOrNull = (isoDate: string | null) => (isoDate === null ? null : date(isoDate));
  const r = doc.run;
  const derived = derivedColumns(doc);
  const stmts: Stmt[] = [
    {
      sql: `SELECT 1 AS "x" FROM "Run" WHERE "id" = ?`,
      args: [newId],
      check: ({ rows }) => {
        if (rows.length) throw new ConflictError(`run ${newId} already exists: this run was imported before (import with ?as=new to keep another copy)`, { id: newId, originalId });
      },
    },
    {
      sql: RUN_INSERT,
      args: [
        newId,
        r.workflow,
        r.status,
        JSON.stringify(r.state),
        JSON.stringify(r.input ?? null),
        dbJson(r.output),
        dbJson(r.error),
        JSON.stringify(r.entered),
        r.version,
        r.seq,
        r.parentId === null ? null : importedId(r.parentId),
        r.forkOf === null ? null : importedId(r.forkOf),
        r.forkSeq,
        null, // scheduleId: a schedule of the exporting server starts nothing here
        derived.retries,
        dateOrNull(derived.waitingSince),
        derived.failedStates,
        date(r.createdAt),
        date(r.updatedAt),
        dateOrNull(r.finishedAt),
        r.name,
        r.replayOf === null ? null : importedId(r.replayOf),
        r.replay === null || r.replay === undefined ? null : JSON.stringify(r.replay),
      ],
    },
    {
      sql: insertTransitionsSql("VALUES (?,?,?,?,?,?,?,?,?)"),
      each: doc.transitions.map((t) => [newId, t.seq, JSON.stringify(t.from), JSON.stringify(t.to), t.event, t.reason, date(t.at), t.durationMs, dbJson(t.payload)]),
    },
    {
      sql: openReviewsSql("VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
      each: doc.reviews.map((v, i) => [`${newId}-review-${i + 1}`, newId, v.workflow, v.state, v.kind, v.prompt, JSON.stringify(v.payload ?? null), v.status, v.decision, v.feedback, v.reviewer, date(v.createdAt), dateOrNull(v.decidedAt), v.seq]),
    },
    {
      sql: `INSERT INTO "Snapshot" ("runId","seq","first","snapshot","context","timers","at") VALUES (?,?,?,?,?,?,?)`,
      each: doc.snapshots.map((x) => [newId, x.seq, x.first, JSON.stringify(x.snapshot), JSON.stringify(x.context ?? null), JSON.stringify(x.timers), date(x.at)]),
    },
    {
      // the run's current state is its Snapshot row at its seq: the run's own snapshot and context
      // (an export from before snapshots were kept has none at that seq)
      sql: `INSERT INTO "Snapshot" (${SNAPSHOT_COLS}) VALUES (?,?,?,?,?,?,?) ON CONFLICT ("runId","seq") DO UPDATE SET "snapshot"=excluded."snapshot","context"=excluded."context"`,
      args: [newId, r.seq, r.seq, JSON.stringify(r.snapshot), JSON.stringify(r.context ?? null), timersJson(doc.timers.map((t) => ({ ...t, dueAt: Date.parse(t.dueAt) }))), date(r.updatedAt)],
    },
    {
      sql: `INSERT INTO "Timer" (${TIMER_COLS}) VALUES (?,?,?,?,?)`,
      each: doc.timers.map((t) => [newId, t.id, date(t.dueAt), JSON.stringify(t.event), t.seq]),
    },
    {
      // binary content goes back in as the bytes it was (a BLOB), text as text; size is recomputed
      sql: `INSERT INTO "Artifact" (${ARTIFACT_COLS}) VALUES (?,?,?,?,?)`,
      each: doc.artifacts.map((a, i) => {
        const content = artifactValue(d, a, i);
        return [newId, a.name, content, typeof content === "string" ? Buffer.byteLength(content) : content.length, date(a.updatedAt)];
      }),
    },
    {
      sql: `INSERT INTO "ModelCall" ("id","key","runId","state","purpose","adapter","endpoint","model","promptTokens","completionTokens","estimated","latencyMs","attempts","ok","errorCategory","error","output","createdAt") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
      each: doc.usage.map((u, i) => [
        `${newId}-call-${i + 1}`,
        null,
        newId,
        u.state,
        u.purpose,
        u.adapter,
        u.endpoint,
        u.model,
        u.promptTokens,
        u.completionTokens,
        dbBool(d, u.estimated),
        u.latencyMs,
        u.attempts,
        dbBool(d, u.ok),
        u.errorCategory,
        u.error,
        u.output,
        date(u.createdAt),
      ]),
    },
  ];
  try {
    await writeAll(rt, stmts);
  } catch (e) {
    if (isConstraintError(e)) {
      throw new ConflictError(`run ${newId} could not be imported: ${(e as Error).message}`, { id: newId, originalId });
    }
    if (isUnstorableText(e)) throw new InvalidError(`run ${newId} could not be imported: ${(e as Error).message} (PostgreSQL stores no NUL characters in text)`);
    throw e;
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
