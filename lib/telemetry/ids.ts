// The trace ids of a run, derived from what the run already has, so that every process (a web
// server, a cluster worker, the same server after a restart) names the same spans without storing
// anything: a run's trace id is its id's 32 hex digits (a UUID without its dashes; any other id is
// hashed), the run's own span and each step's span have ids hashed from the run id and the step's
// invocation key.
import { createHash } from "node:crypto";

const hex = (s: string, n: number) => createHash("sha256").update(s).digest("hex").slice(0, n);
const nonZero = (id: string) => (/^0+$/.test(id) ? `${id.slice(0, -1)}1` : id);

/** The trace of run `runId`: its UUID's hex digits, or a hash of any other id. */
export function traceIdOf(runId: string): string {
  const plain = runId.replace(/-/g, "").toLowerCase();
  return nonZero(/^[0-9a-f]{32}$/.test(plain) ? plain : hex(`trace:${runId}`, 32));
}

/** The span of the run itself (the root of its trace). */
export const runSpanIdOf = (runId: string) => nonZero(hex(`run:${runId}`, 16));

/** The span of one step invocation (`runId:child:seq`): the same after a restart or on another process. */
export const stepSpanIdOf = (key: string) => nonZero(hex(`step:${key}`, 16));

/** A W3C `traceparent` header value (version 00, sampled). */
export const traceparentOf = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;

/** The `traceparent` of step invocation `key` of run `runId`. */
export const stepTraceparent = (runId: string, key: string) => traceparentOf(traceIdOf(runId), stepSpanIdOf(key));
