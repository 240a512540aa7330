// NODE_OPTIONS for Switchyard's server and worker processes. A step allocates many short-lived
// objects (XState snapshots, rows, JSON); a 64 MB young generation (V8's default is 16 MB)
// cuts the event loop's garbage-collection pauses by about a third (npm run bench prints them)
// for at most ~100 MB more memory. A --max-semi-space-size already in NODE_OPTIONS wins.
export const SEMI_SPACE_MB = 64;

export function serverNodeOptions(env = process.env) {
  const current = env.NODE_OPTIONS?.trim() ?? "";
  if (/--max-semi-space-size\b/.test(current)) return current;
  return `${current} --max-semi-space-size=${SEMI_SPACE_MB}`.trim();
}
