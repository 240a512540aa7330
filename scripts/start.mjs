// npm start — apply pending migrations to DATABASE_URL, then serve the production build on PORT.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import { runWithServerOptions } from "./node-options.mjs";

const require = createRequire(import.meta.url);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

const migrate = spawnSync(process.execPath, ["--import", "tsx", "scripts/db-migrate.ts"], { stdio: "inherit", env });
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

if (!fs.existsSync(".next/BUILD_ID")) {
  console.error("No production build found: run `npm run setup` (or `npm run build`) first.");
  process.exit(1);
}
const port = process.env.PORT || "3000";
// the path guard answers malformed percent-encoding with 400 (scripts/path-guard.mjs)
const guard = new URL("./path-guard.mjs", import.meta.url).href;
// idle keep-alive connections stay open 65 s (Node's default is 5 s): a client or proxy reusing an
// idle connection just as the server closes it gets ECONNRESET; proxies keep theirs up to 60 s
const args = process.argv.slice(2);
const keepAlive = args.some((a) => a.startsWith("--keepAliveTimeout")) ? [] : ["--keepAliveTimeout", "65000"];
runWithServerOptions(["--import", guard, require.resolve("next/dist/bin/next"), "start", "-p", port, ...keepAlive, ...args], env);
