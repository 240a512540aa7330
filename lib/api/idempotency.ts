// Idempotency-Key on POST /api/runs, POST /api/runs/{id}/events and POST /api/reviews/{id}/decision
// (as Stripe does it): a repeat with the same key answers as the first request did (same status
// and body, with `Idempotent-Replayed: true`); the same key with another body is refused (422).
// Keys are scoped by user (accounts on) and by method and path, and kept for 24 hours.
//
// Durable: the key is written by the run store in the SAME transaction as the commit the request
// makes (CommitItem.idempotency), so a crash cannot leave a run or a step without its key, and a
// client retrying after a dropped connection finds it. The first answer's body is stored just after
// (a second write); if the process died in between, a repeat rebuilds it from the run as it is now.
// Within a process, requests with the same key wait for each other; across processes the key's
// primary key decides (the loser's commit is undone and it answers with the winner's answer).
import { createHash } from "node:crypto";
import { z } from "zod";
import type { Runtime } from "../runtime-types";
import { ConflictError, isStorageFailure, StorageError } from "../engine/errors";
import type { IdempotencyClaim, StoredIdempotencyRow } from "../engine/store/types";
import { IDEMPOTENCY_TTL_MS } from "../engine/store/idempotency";
import { HttpError } from "./http";

export { IDEMPOTENCY_TTL_MS };

export const IDEMPOTENCY_HEADER = "idempotency-key";

/** 1 to 255 printable ASCII characters (no control characters, nothing beyond ASCII). */
export const IdempotencyKeyValue = z
  .string()
  .min(1, "must not be empty")
  .max(255, "at most 255 characters")
  .regex(/^[\x20-\x7e]+$/, "printable ASCII characters only");

/** A validated key with its scope and the request's fingerprint. */
export interface KeyedRequest {
  scope: string;
  key: string;
  fingerprint: string;
}

/** JSON with object keys sorted, so that the same body sent with its keys in another order is the same request. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
    .join(",")}}`;
}

/**
 * The request's Idempotency-Key (null without one): 400 when the header is not 1–255 printable
 * characters. `user`: the signed-in person's id (accounts on), part of the key's scope.
 */
export function keyedRequest(req: Request, body: unknown, user?: { userId: string } | null): KeyedRequest | null {
  const raw = req.headers.get(IDEMPOTENCY_HEADER);
  if (raw === null) return null;
  const parsed = IdempotencyKeyValue.safeParse(raw);
  if (!parsed.success) throw new HttpError(`Idempotency-Key header: ${parsed.error.issues.map((i) => i.message).join("; ")}`, 400, "invalid_idempotency_key");
  const path = new URL(req.url).pathname;
  return {
    scope: `${user?.userId ?? "-"} ${req.method} ${path}`,
    key: parsed.data,
    fingerprint: createHash("sha256").update(canonicalJson(body ?? null)).digest("hex"),
  };
}

export interface Answer<T> {
  status: number;
  body: T;
  /** true when this is the stored answer of an earlier request with the key */
  replayed: boolean;
}

type Stored = StoredIdempotencyRow;

async function find(rt: Runtime, k: KeyedRequest): Promise<Stored | null> {
  const row = await rt.store.idempotency.get(k.scope, k.key);
  if (!row) return null;
  if (row.createdAt > rt.clock.now() - IDEMPOTENCY_TTL_MS) return row;
  // expired: forgotten, so that the key can be used again
  await rt.store.idempotency.forget(k.scope, k.key, rt.clock.now() - IDEMPOTENCY_TTL_MS);
  return null;
}

/** requests with a key that are running in this process, per runtime, by scope and key */
const inflight = new WeakMap<Runtime, Map<string, Promise<unknown>>>();

/**
 * Answer a request that may carry a key. `act` does the work, handing `claim` to the engine (which
 * writes it with the commit); `rebuild` makes the answer from the stored key when the first answer's
 * body was not stored. Without a key, `act` runs as usual.
 */
export async function idempotent<T>(
  rt: Runtime,
  k: KeyedRequest | null,
  status: number,
  act: (claim: IdempotencyClaim | undefined) => Promise<T>,
  rebuild: (row: Stored) => Promise<T>,
): Promise<Answer<T>> {
  if (!k) return { status, body: await act(undefined), replayed: false };
  const slot = `${k.scope}\n${k.key}`;
  let running = inflight.get(rt);
  if (!running) inflight.set(rt, (running = new Map()));
  for (;;) {
    const prior = await find(rt, k);
    if (prior) return replay(k, prior, rebuild);
    const other = running.get(slot);
    if (!other) break;
    await other.catch(() => undefined); // the same key in flight here: its outcome decides
  }
  const work = (async (): Promise<Answer<T>> => {
    let body: T;
    try {
      body = await act({ scope: k.scope, key: k.key, fingerprint: k.fingerprint, status, createdAt: rt.clock.now() });
    } catch (e) {
      // another process committed with this key first: its answer is the answer. Its commit says
      // so (a conflict), or, on a loaded database, fails for a reason of its own while the other
      // holds the key (a deadlock or serialization failure past the store's retries, a dropped
      // connection): the key, once there, decides then too
      const lost = e instanceof ConflictError || e instanceof StorageError || isStorageFailure(e);
      const prior = lost ? await find(rt, k).catch(() => null) : null;
      if (prior) return replay(k, prior, rebuild);
      throw e;
    }
    // the first answer, for repeats (a crash before this write: repeats rebuild it from the run)
    await rt.store.idempotency.answered(k.scope, k.key, JSON.stringify(body)).catch(() => undefined);
    return { status, body, replayed: false };
  })();
  running.set(slot, work);
  try {
    return await work;
  } finally {
    if (running.get(slot) === work) running.delete(slot);
  }
}

async function replay<T>(k: KeyedRequest, prior: Stored, rebuild: (row: Stored) => Promise<T>): Promise<Answer<T>> {
  if (prior.fingerprint !== k.fingerprint) {
    throw new HttpError(
      `Idempotency-Key "${k.key}" was already used for a request with a different body (at ${new Date(prior.createdAt).toISOString()}, run ${prior.runId}); send the same body to get the first answer again, or use a new key for a new request`,
      422,
      "idempotency_key_reused",
    );
  }
  const body = prior.response !== null ? (JSON.parse(prior.response) as T) : await rebuild(prior);
  return { status: prior.status, body, replayed: true };
}

/** Headers of an answer: `Idempotent-Replayed: true` on a repeat. */
export function replayHeaders(a: Answer<unknown>, extra: Record<string, string> = {}): Record<string, string> {
  return a.replayed ? { ...extra, "idempotent-replayed": "true" } : extra;
}
