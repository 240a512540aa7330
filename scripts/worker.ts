// npm run worker — a worker process for PostgreSQL deployments: runs the effects, timers and
// chores that web processes (SWITCHYARD_ROLE=web) and other workers queue on pg-boss. Start as
// many as you like; stop one with SIGTERM/SIGINT (its unfinished jobs go back to the queue).
import "dotenv/config";
import { migrateDatabase } from "../lib/db/migrations";
import { databaseUrl, providerOf } from "../lib/db/url";
import { createRuntime } from "../lib/runtime";
import { startTelemetry, stopTelemetry } from "../lib/telemetry";

const url = databaseUrl();
if (providerOf(url) !== "postgres") {
  console.error("npm run worker needs PostgreSQL: set DATABASE_URL=postgresql://… (on SQLite, `npm start` runs everything in one process)");
  process.exit(2);
}
await startTelemetry();
const rt = await createRuntime({ role: "worker", migrate: migrateDatabase });
const w = rt.cluster!.worker!;
const concurrency = process.env.SWITCHYARD_WORKER_CONCURRENCY || "32";
console.log(`switchyard worker ${rt.cluster!.origin.slice(0, 8)} started (pid ${process.pid}, ${concurrency} effects at once, queue schema ${rt.cluster!.settings.schema})`);
const every = Number(process.env.SWITCHYARD_WORKER_STATS_MS || 60_000);
const stats = every > 0 ? setInterval(() => console.log(`worker stats ${JSON.stringify({ ...w.stats, startLatencyMs: undefined, busy: w.busy })}`), every) : null;
stats?.unref();
let stopping = false;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    console.log(`worker: ${sig}, finishing running jobs`);
    rt.close().then(
      () => stopTelemetry().finally(() => process.exit(0)),
      (e) => {
        console.error(e);
        process.exit(1);
      },
    );
  });
}
