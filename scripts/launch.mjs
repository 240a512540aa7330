// node scripts/launch.mjs FILE.ts [args…] — run a TypeScript entry point (tsx) in a child Node
// with the server's NODE_OPTIONS (scripts/node-options.mjs): npm run worker, and npm run bench
// so that it measures the engine as the server runs it. Signals pass through; the exit code too.
import { runWithServerOptions } from "./node-options.mjs";

const [file, ...args] = process.argv.slice(2);
if (!file) {
  console.error("usage: node scripts/launch.mjs FILE.ts [args…]");
  process.exit(2);
}
runWithServerOptions(["--import", "tsx", file, ...args]);
