// Build @switchyard/client (clients/typescript: src/ → dist/, JavaScript and types) with the app's
// TypeScript. `npm run setup` builds it always; the test runners (vitest's and Playwright's global
// setup) build it only when dist/ is missing or older than src/, so a fresh checkout's tests run.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dir = path.join(root, "clients/typescript");

const newest = (d) => Math.max(0, ...fs.readdirSync(d).map((f) => fs.statSync(path.join(d, f)).mtimeMs));

/** Is dist/ missing, or older than a file of src/ (or the package's tsconfig)? */
export function clientStale() {
  const built = path.join(dir, "dist/index.js");
  if (!fs.existsSync(built) || !fs.existsSync(path.join(dir, "dist/index.d.ts"))) return true;
  const since = fs.statSync(built).mtimeMs;
  return newest(path.join(dir, "src")) > since || fs.statSync(path.join(dir, "tsconfig.json")).mtimeMs > since;
}

export function buildClient({ always = false } = {}) {
  if (!always && !clientStale()) {
    linkBin();
    return false;
  }
  // a clean dist/: no file of a source that was removed stays behind
  fs.rmSync(path.join(dir, "dist"), { recursive: true, force: true });
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", path.join(dir, "tsconfig.json")], { stdio: "inherit" });
  if (r.status !== 0) throw new Error(`building @switchyard/client failed (tsc exited ${r.status})`);
  // the package's bin (`npx switchyard`): executable, and linked (npm links a file: package's bins
  // before this postinstall has built them, and skips a bin that does not exist yet)
  fs.chmodSync(path.join(dir, "dist/cli.js"), 0o755);
  linkBin();
  return true;
}

/** node_modules/.bin/switchyard → the built CLI, when the app has the package installed. */
export function linkBin() {
  const bin = path.join(root, "node_modules/.bin/switchyard");
  if (!fs.existsSync(path.join(root, "node_modules/@switchyard/client/package.json")) || fs.existsSync(bin)) return;
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  try {
    fs.symlinkSync("../@switchyard/client/dist/cli.js", bin);
  } catch (e) {
    if (e.code !== "EEXIST") throw e;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildClient({ always: process.argv.includes("--always") });
}
