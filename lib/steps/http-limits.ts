// The limits of an http step's call (lib/steps/http.ts), apart so that the save-time check
// (lib/steps/check.ts, which also runs in the browser's editor) can read them.

/** the largest reply an http step reads when it names no max_bytes (1 MB) */
export const HTTP_DEFAULT_MAX_BYTES = 1_000_000;
/** SWITCHYARD_HTTP_MAX_BYTES's default: no http step reads more (10 MB) */
export const HTTP_MAX_BYTES_CAP = 10_000_000;
/** how long one attempt may wait for its whole reply */
export const HTTP_TIMEOUT_MS = 30_000;

/** The most any http step may read: SWITCHYARD_HTTP_MAX_BYTES (bytes), default 10 MB. Throws on a bad value (checked at boot). */
export function httpMaxBytes(env: Record<string, string | undefined>): number {
  const v = env.SWITCHYARD_HTTP_MAX_BYTES?.trim();
  if (!v) return HTTP_MAX_BYTES_CAP;
  const n = Number(v);
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < 1) throw new Error(`SWITCHYARD_HTTP_MAX_BYTES must be a whole number of bytes (1 or more); got "${v}"`);
  return n;
}

/** SWITCHYARD_HTTP_MAX_BYTES for the save-time check: the default when it cannot be read (the browser) or is malformed (boot refuses that). */
export function httpMaxBytesForChecks(): number {
  try {
    return httpMaxBytes(typeof process === "undefined" ? {} : process.env);
  } catch {
    return HTTP_MAX_BYTES_CAP;
  }
}
