// Is the production build (.next) fresh? `npm run setup` and `npm test` both need one; each
// builds only when the sources it was built from changed since (a hash of their contents,
// written next to the build), so a CI run or a user's setup-then-test builds once.
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const STAMP = path.join(".next", "switchyard-sources.sha256");
// not part of what `next build` bundles (tests, tooling, generated and local data)
const SKIP_DIRS = new Set(["node_modules", ".next", ".git", "data", "test-results", "playwright-report", "blob-report", "test", "e2e", "bench", "scripts", ".ci", "tmp", "screenshots"]);
const SKIP_FILES = new Set(["next-env.d.ts", "vitest.config.ts", "playwright.config.ts", "README.md", "SECURITY.md"]);

/** sha256 over the relative path and contents of every file the build can read, plus NEXT_PUBLIC_* */
export function sourceHash(root = ".") {
  const h = crypto.createHash("sha256");
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !(dir === root && e.name.startsWith("."))) walk(rel);
      } else if (e.isFile() && !SKIP_FILES.has(e.name) && !e.name.endsWith(".tsbuildinfo")) {
        h.update(`${rel}\0`);
        h.update(fs.readFileSync(rel));
        h.update("\0");
      }
    }
  };
  walk(root);
  for (const k of Object.keys(process.env).filter((k) => k.startsWith("NEXT_PUBLIC_")).sort()) h.update(`${k}=${process.env[k]}\0`);
  return h.digest("hex");
}

/** null when .next holds a build of exactly these sources, else why it must be built */
export function staleReason(hash = sourceHash()) {
  if (!fs.existsSync(path.join(".next", "BUILD_ID"))) return "no production build yet";
  if (!fs.existsSync(STAMP)) return "the build does not record what it was built from";
  return fs.readFileSync(STAMP, "utf8").trim() === hash ? null : "the sources changed since the last build";
}

/**
 * `next build` unless the build is fresh; true when it built. `typecheck: false` when the caller
 * runs `tsc` itself (npm test), so that the types are checked once.
 */
export function ensureBuild({ typecheck = true, env = process.env } = {}) {
  const hash = sourceHash();
  const why = staleReason(hash);
  if (!why) {
    console.log("✔ production build is up to date with the sources (reused)");
    return false;
  }
  console.log(`production build needed: ${why}`);
  fs.rmSync(STAMP, { force: true });
  const r = spawnSync(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
    stdio: "inherit",
    env: { ...env, NEXT_TELEMETRY_DISABLED: "1", ...(typecheck ? {} : { SWITCHYARD_BUILD_TYPECHECK: "0" }) },
  });
  if (r.status !== 0) throw new Error(`next build failed (exit ${r.status})`);
  // the hash of the sources as they were when the build started
  fs.writeFileSync(STAMP, `${hash}\n`);
  return true;
}
