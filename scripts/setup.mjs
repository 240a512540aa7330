// npm run setup — install, generate the Prisma clients, build the TypeScript client package
// (clients/typescript/dist), create or migrate the database, make sure Chromium is there for the
// browser tests, and build (unless the build is up to date). Downloads nothing but npm and Debian
// packages; safe to run again.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { ensureBuild } from "./build-stamp.mjs";

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

function run(name, cmd, args, opts = {}) {
  console.log(`\n▶ ${name}`);
  const r = spawnSync(cmd, args, { stdio: "inherit", env, ...opts });
  if (r.status !== 0) {
    console.error(`✖ ${name} failed`);
    process.exit(r.status ?? 1);
  }
}

const major = Number(process.versions.node.split(".")[0]);
if (major < 20) {
  console.error(`Switchyard needs Node.js 20 or newer (this is ${process.version}).`);
  process.exit(1);
}

// `npm ci` cannot work here (the registry serves no non-Linux optional packages); `npm install` honours the lockfile
if (!process.env.SWITCHYARD_SKIP_INSTALL) run("npm install", "npm", ["install", "--no-audit", "--no-fund"]);
run("generate Prisma clients", process.execPath, ["scripts/prisma-generate.mjs"]);
// @switchyard/client (clients/typescript): its dist/ (JavaScript and types) is built here, not committed
run("build the TypeScript client (@switchyard/client)", process.execPath, ["scripts/build-client.mjs", "--always"]);
run("migrate the database", process.execPath, ["--import", "tsx", "scripts/db-migrate.ts"]);
// the shipped user guide, so that a first start has something to search (duplicates are skipped)
// docs/guide and each workflow's own guide page (workflows/<id>/guide.md)
const workflowGuides = fs.readdirSync("workflows", { withFileTypes: true }).filter((d) => d.isDirectory() && fs.existsSync(`workflows/${d.name}/guide.md`)).map((d) => `workflows/${d.name}/guide.md`);
if (process.env.SWITCHYARD_SEED_GUIDE !== "0") run("import the user guide into the knowledge store", process.execPath, ["--import", "tsx", "scripts/import.ts", "docs/guide", ...workflowGuides]);

const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (fs.existsSync(chromium)) {
  console.log(`\n✔ Chromium found at ${chromium}`);
} else if (process.getuid?.() === 0 && fs.existsSync("/usr/bin/apt-get")) {
  run("install Debian's chromium (for the browser tests)", "sh", ["-c", "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null"]);
} else {
  console.warn(
    `\n⚠ Chromium is not installed (needed only by \`npm test\`'s browser tests). Install it with:\n    sudo apt-get update && sudo apt-get install -y chromium\n  or point CHROMIUM_PATH at a Chromium binary.`,
  );
}

// skipped when the build is up to date with the sources; SWITCHYARD_SKIP_BUILD=1 leaves it to `npm test` (CI)
if (!process.env.SWITCHYARD_SKIP_BUILD) {
  console.log("\n▶ production build");
  try {
    ensureBuild();
  } catch (e) {
    console.error(`✖ production build failed: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  }
}
console.log("\nReady: `npm start` serves Switchyard on http://localhost:" + (process.env.PORT || "3000"));
