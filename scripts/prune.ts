// npm run prune -- --days <n> [--archive <folder>] — remove finished runs older than n days from
// DATABASE_URL (default: SQLite under data/), archiving each as run-<id>.json first when asked.
// Live runs are never touched. The same job runs on a schedule when SWITCHYARD_RETENTION_DAYS is set.
import "dotenv/config";
import { parseArgs } from "node:util";
import { migrateDatabase } from "../lib/db/migrations";
import { pruneRuns } from "../lib/retention/prune";
import { createRuntime } from "../lib/runtime";
import { provideWorkflows } from "../lib/machines/registry";
import * as workflows from "../workflows/registry";

provideWorkflows(workflows);

const { values } = parseArgs({ args: process.argv.slice(2).filter((a) => a !== "--"), options: { days: { type: "string" }, archive: { type: "string" }, help: { type: "boolean", short: "h" } } });
const days = Number(values.days);
if (values.help || !values.days || !(days > 0)) {
  console.error("usage: npm run prune -- --days <n> [--archive <folder>]\n  removes finished runs older than n days (and what they own); --archive writes each as run-<id>.json first");
  process.exit(values.help ? 0 : 2);
}
const rt = await createRuntime({ migrate: migrateDatabase, resume: false, serviceChoresMs: 0, alerts: { start: false }, retention: null });
try {
  const out = await pruneRuns(rt, { olderThanMs: days * 86_400_000, archiveDir: values.archive ?? null });
  console.log(`finished runs before ${out.cutoff}: ${out.runs} removed${values.archive ? `, ${out.archived} archived to ${values.archive}` : ""}; ${out.snapshots} old snapshots of remaining runs dropped`);
  console.log(Object.entries(out.rows).map(([t, n]) => `${t} ${n}`).join(" · "));
} finally {
  await rt.close();
}
