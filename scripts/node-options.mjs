// NODE_OPTIONS for Switchyard's server and worker processes. A step allocates many short-lived
// objects (XState snapshots, rows, JSON); a 64 MB young generation (V8's default is 16 MB)
// cuts the event loop's garbage-collection pauses by about a third (npm run bench prints them)
// for at most ~100 MB more memory. A --max-semi-space-size already in NODE_OPTIONS wins.
import { spawn } from "node:child_process";

export const SEMI_SPACE_MB = 64;

export function serverNodeOptions(env = process.env) {
  const current = env.NODE_OPTIONS?.trim() ?? "";
  if (/--max-semi-space-size\b/.test(current)) return current;
  return `${current} --max-semi-space-size=${SEMI_SPACE_MB}`.trim();
}

/** Run `node …args` with these options (npm start, npm run worker, npm run bench): signals pass through, its exit code is ours. */
export function runWithServerOptions(args, env = process.env) {
  const child = spawn(process.execPath, args, { stdio: "inherit", env: { ...env, NODE_OPTIONS: serverNodeOptions(env) } });
  for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return child;
}
