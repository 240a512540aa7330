// The process SIGKILLed in the support-triage scenario (test/support-triage.test.ts): on the
// database at argv[2] it saves examples/workflows/support-triage.yaml and starts the tickets given
// as JSON in argv[3] against the helpdesk API at argv[4]. It prints each run's id; the test kills
// it (SIGKILL) while the helpdesk holds the LOOKUP calls unanswered.
import fs from "node:fs";
import path from "node:path";
import { migrateDatabase } from "../../lib/db/migrations";
import { saveUserWorkflow } from "../../lib/flows/store";
import { createRuntime } from "../../lib/runtime";
import { provideWorkflows } from "../../lib/machines/registry";
import * as workflows from "../../workflows/registry";

provideWorkflows(workflows);

const [url, tickets, apiBase] = process.argv.slice(2);
const say = (o: unknown) => fs.writeSync(1, `${JSON.stringify(o)}\n`);
const rt = await createRuntime({ url, env: process.env, migrate: migrateDatabase, serviceChoresMs: 0, seedGuide: false, alerts: { start: false }, webhooks: { start: false } });
await saveUserWorkflow(rt.db, "yaml", fs.readFileSync(path.resolve("examples/workflows/support-triage.yaml"), "utf8"));
for (const t of JSON.parse(tickets!) as Record<string, unknown>[]) {
  const { run } = await rt.engine.start("support-triage", { ...t, api_base: apiBase });
  say({ runId: run.id, ticket: t.ticket_id });
}
// wait to be killed
await new Promise((r) => setTimeout(r, 60_000));
fs.writeSync(1, "not killed\n");
process.exit(3);
