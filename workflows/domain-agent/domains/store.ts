// Storage of the domain-agent workflow (workflows/domain-agent/guide.md): the person's log entries, the global context
// (profile facts the person can see and edit) and the observer's decisions. Plain Prisma, no
// Next.js: the workflow's effects, the API and the /log page all go through here.
import type { Db } from "../../../lib/db/client";
import { InvalidError } from "../../../lib/engine/errors";
import type { LogEntry, Metric, ParsedEntry } from "./types";

/** A profile key: snake_case, starting with a letter, at most 64 characters. */
export const PROFILE_KEY = /^[a-z][a-z0-9_]{0,63}$/;
export const MAX_PROFILE_VALUE = 500;
/** Longer reasons are cut (an observer's explanation must not fail a write). */
export const MAX_REASON = 2_000;
export const DAY = /^\d{4}-\d{2}-\d{2}$/;

export interface ProfileFact {
  key: string;
  value: string;
  domain: string | null;
  source: "observer" | "user";
  reason: string;
  runId: string | null;
  updatedAt: string;
}

export interface ProfileChange {
  key: string;
  from: string | null;
  to: string;
}

export interface Observation {
  id: string;
  runId: string;
  /** post_query | user_correction | significant_log */
  triggers: string[];
  decision: "update" | "skip";
  reason: string;
  changes: ProfileChange[];
  createdAt: string;
}

const DEFAULT_ENTRY_LIMIT = 500;
const MAX_ENTRY_LIMIT = 5_000;
const DEFAULT_OBSERVATION_LIMIT = 100;
const MAX_OBSERVATION_LIMIT = 1_000;

function clampLimit(limit: number | undefined, dflt: number, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return dflt;
  return Math.min(max, Math.max(1, Math.floor(limit)));
}

function parseJson<T>(text: string, fallback: T): T {
  try {
    const v = JSON.parse(text) as unknown;
    return (Array.isArray(fallback) ? (Array.isArray(v) ? v : fallback) : v) as T;
  } catch {
    return fallback;
  }
}

function iso(d: Date | string | number): string {
  return new Date(d).toISOString();
}

/** Is `day` a real calendar day written YYYY-MM-DD? */
export function isDay(day: string): boolean {
  if (!DAY.test(day)) return false;
  const t = Date.parse(`${day}T00:00:00Z`);
  return Number.isFinite(t) && new Date(t).toISOString().slice(0, 10) === day;
}

// ---------------------------------------------------------------------------------------------
// Log entries

type EntryRow = { id: string; runId: string | null; day: string; text: string; metrics: string; domains: string; significant: string | null; createdAt: Date };

function toEntry(row: EntryRow): LogEntry {
  return {
    id: row.id,
    runId: row.runId,
    day: row.day,
    text: row.text,
    metrics: parseJson<Metric[]>(row.metrics, []),
    domains: parseJson<string[]>(row.domains, []),
    significant: row.significant,
    createdAt: iso(row.createdAt),
  };
}

/**
 * Store the entries a run parsed, with ids `${runId}-e${i + 1}`: running it again (after a crash)
 * overwrites them, never duplicates. `significant[i]` is why entry i triggered the observer, or
 * null. One transaction.
 */
export async function saveEntries(db: Db, runId: string, entries: ParsedEntry[], significant: (string | null)[], now: number): Promise<LogEntry[]> {
  if (!runId) throw new InvalidError("saveEntries needs a run id");
  entries.forEach((e, i) => {
    if (!isDay(e.day)) throw new InvalidError(`entry ${i + 1}: day must be a date written YYYY-MM-DD (got "${e.day}")`);
  });
  const createdAt = new Date(now);
  const rows = entries.map((e, i) => ({
    id: `${runId}-e${i + 1}`,
    runId,
    day: e.day,
    text: e.text,
    metrics: JSON.stringify(e.metrics ?? []),
    domains: JSON.stringify(e.domains ?? []),
    significant: significant[i] ?? null,
    createdAt,
  }));
  if (rows.length === 0) return [];
  await db.$transaction(async (tx) => {
    for (const { id, ...data } of rows) {
      await tx.logEntry.upsert({ where: { id }, create: { id, ...data }, update: data });
    }
  });
  return rows.map(toEntry);
}

const naturalId = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true });

/**
 * Entries, newest day first (then newest stored first, then by id in written order). `from` and
 * `to` are inclusive YYYY-MM-DD days; `domain` keeps entries tagged with it. Default limit 500,
 * at most 5,000.
 */
export async function listEntries(db: Db, q: { domain?: string; from?: string; to?: string; runId?: string; limit?: number } = {}): Promise<LogEntry[]> {
  const day: { gte?: string; lte?: string } = {};
  if (q.from) day.gte = q.from;
  if (q.to) day.lte = q.to;
  const rows = await db.logEntry.findMany({
    where: {
      ...(q.domain ? { domains: { contains: JSON.stringify(q.domain) } } : {}),
      ...(q.from || q.to ? { day } : {}),
      ...(q.runId ? { runId: q.runId } : {}),
    },
    orderBy: [{ day: "desc" }, { createdAt: "desc" }, { id: "asc" }],
    take: clampLimit(q.limit, DEFAULT_ENTRY_LIMIT, MAX_ENTRY_LIMIT),
  });
  const entries = rows.map(toEntry);
  // ids sort as text in SQL ("-e10" before "-e2"): order ties naturally (the sort is stable)
  return entries.sort((a, b) => (a.day === b.day && a.createdAt === b.createdAt ? naturalId(a.id, b.id) : 0));
}

// ---------------------------------------------------------------------------------------------
// Global context (profile facts)

type FactRow = { key: string; value: string; domain: string | null; source: string; reason: string; runId: string | null; updatedAt: Date };

function toFact(row: FactRow): ProfileFact {
  return {
    key: row.key,
    value: row.value,
    domain: row.domain,
    source: row.source === "user" ? "user" : "observer",
    reason: row.reason,
    runId: row.runId,
    updatedAt: iso(row.updatedAt),
  };
}

function checkKey(key: unknown): string {
  if (typeof key !== "string" || !PROFILE_KEY.test(key)) {
    throw new InvalidError(`profile key must be snake_case: a lowercase letter, then lowercase letters, digits or _ (at most 64 characters), e.g. "body_weight_kg" (got ${JSON.stringify(key)})`);
  }
  return key;
}

function checkValue(key: string, value: unknown): string {
  if (typeof value !== "string") throw new InvalidError(`profile value of "${key}" must be a string`);
  const v = value.trim();
  if (v === "") throw new InvalidError(`profile value of "${key}" must not be empty (delete the fact instead)`);
  if (v.length > MAX_PROFILE_VALUE) throw new InvalidError(`profile value of "${key}" is longer than ${MAX_PROFILE_VALUE} characters (${v.length})`);
  return v;
}

function cutReason(reason: string): string {
  const r = (reason ?? "").trim();
  return r.length > MAX_REASON ? `${r.slice(0, MAX_REASON - 1)}…` : r;
}

/** The global context as key → value. */
export async function getProfile(db: Db): Promise<Record<string, string>> {
  const rows = await db.profileFact.findMany({ select: { key: true, value: true }, orderBy: { key: "asc" } });
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/** The profile facts with where they came from, by key. */
export async function listProfile(db: Db): Promise<ProfileFact[]> {
  return (await db.profileFact.findMany({ orderBy: { key: "asc" } })).map(toFact);
}

/**
 * Set facts (values are trimmed; keys snake_case, values 1–500 characters, else InvalidError and
 * nothing is written). A value equal to the stored one is not rewritten: only what changed is
 * returned. `domain` left out keeps the stored domain. One transaction.
 */
export async function setProfileFacts(
  db: Db,
  changes: { key: string; value: string; domain?: string | null }[],
  meta: { source: "observer" | "user"; reason: string; runId?: string | null },
  now: number,
): Promise<ProfileChange[]> {
  if (meta.source !== "observer" && meta.source !== "user") throw new InvalidError(`profile source must be "observer" or "user" (got ${JSON.stringify(meta.source)})`);
  const checked = changes.map((c) => {
    const key = checkKey(c.key);
    return { key, value: checkValue(key, c.value), domain: c.domain };
  });
  if (checked.length === 0) return [];
  const reason = cutReason(meta.reason);
  const updatedAt = new Date(now);
  return db.$transaction(async (tx) => {
    const current = new Map((await tx.profileFact.findMany({ where: { key: { in: checked.map((c) => c.key) } } })).map((r) => [r.key, r.value] as [string, string]));
    const done: ProfileChange[] = [];
    for (const c of checked) {
      const from = current.get(c.key) ?? null;
      if (from === c.value) continue;
      const data = { value: c.value, source: meta.source, reason, runId: meta.runId ?? null, updatedAt, ...(c.domain !== undefined ? { domain: c.domain } : {}) };
      await tx.profileFact.upsert({ where: { key: c.key }, create: { key: c.key, domain: c.domain ?? null, ...data }, update: data });
      current.set(c.key, c.value);
      // the same key twice in one call: one change, from the stored value to the last one
      const earlier = done.findIndex((d) => d.key === c.key);
      if (earlier >= 0) done.splice(earlier, 1, { key: c.key, from: done[earlier]!.from, to: c.value });
      else done.push({ key: c.key, from, to: c.value });
    }
    return done.filter((d) => d.from !== d.to);
  });
}

/** Remove a fact: false when there was none. */
export async function deleteProfileFact(db: Db, key: string): Promise<boolean> {
  const { count } = await db.profileFact.deleteMany({ where: { key: checkKey(key) } });
  return count > 0;
}

// ---------------------------------------------------------------------------------------------
// Observer decisions

type ObservationRow = { id: string; runId: string; triggers: string; decision: string; reason: string; changes: string; createdAt: Date };

function toObservation(row: ObservationRow): Observation {
  return {
    id: row.id,
    runId: row.runId,
    triggers: parseJson<string[]>(row.triggers, []),
    decision: row.decision === "update" ? "update" : "skip",
    reason: row.reason,
    changes: parseJson<ProfileChange[]>(row.changes, []),
    createdAt: iso(row.createdAt),
  };
}

/** Record why the observer updated the global context or not (upsert by id: a re-run overwrites). */
export async function recordObservation(
  db: Db,
  o: { id: string; runId: string; triggers: string[]; decision: "update" | "skip"; reason: string; changes: ProfileChange[] },
  now: number,
): Promise<Observation> {
  if (!o.id) throw new InvalidError("an observation needs an id");
  if (!o.runId) throw new InvalidError("an observation needs a run id");
  if (o.decision !== "update" && o.decision !== "skip") throw new InvalidError(`observation decision must be "update" or "skip" (got ${JSON.stringify(o.decision)})`);
  if (!Array.isArray(o.triggers) || o.triggers.some((t) => typeof t !== "string")) throw new InvalidError("observation triggers must be a list of strings");
  const data = {
    runId: o.runId,
    triggers: JSON.stringify(o.triggers),
    decision: o.decision,
    reason: cutReason(o.reason),
    changes: JSON.stringify(o.changes ?? []),
    createdAt: new Date(now),
  };
  const row = await db.observation.upsert({ where: { id: o.id }, create: { id: o.id, ...data }, update: data });
  return toObservation(row);
}

/** The observer's decisions, newest first (default 100, at most 1,000). */
export async function listObservations(db: Db, q: { runId?: string; limit?: number } = {}): Promise<Observation[]> {
  const rows = await db.observation.findMany({
    where: q.runId ? { runId: q.runId } : {},
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: clampLimit(q.limit, DEFAULT_OBSERVATION_LIMIT, MAX_OBSERVATION_LIMIT),
  });
  return rows.map(toObservation);
}
