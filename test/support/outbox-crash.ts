// A process killed between a commit and its side effects (test/outbox.test.ts): on the database
// at argv[2], with a webhook to argv[3], it runs swiss-army to its review, approves it, and
// SIGKILLs itself from the run bus the moment the approval's commit is done, before the commit's
// post-commit action (logDecision) or webhook deliveries have done anything.
import fs from "node:fs";
import { migrateDatabase } from "../../lib/db/migrations";
import { createRuntime } from "../../lib/runtime";
import { provideWorkflows } from "../../lib/machines/registry";
import * as workflows from "../../workflows/registry";

provideWorkflows(workflows);

const [url, hookUrl] = process.argv.slice(2);
const rt = await createRuntime({ url, env: {} as NodeJS.ProcessEnv, migrate: migrateDatabase, serviceChoresMs: 0, seedGuide: false, alerts: { start: false }, webhooks: { start: false } });
await rt.webhooks.createWebhook({ workflow: "swiss-army", url: hookUrl, secret: "s3cret-s3cret-s3cret-XY", events: ["on_transition"] });
const { run } = await rt.engine.start("swiss-army", { request: "Write a TypeScript function that retries a fetch with exponential backoff and jitter" });
const waiting = await rt.engine.waitFor(run.id, (r) => r.state.includes("HUMAN_REVIEW") && !!r.reviewId, 60_000);
// let the deliveries and actions of the steps before the review settle (they are not the point)
await rt.engine.outbox.idle();
rt.engine.bus.subscribe(run.id, (msg) => {
  if (msg.type !== "run" || !msg.transitions.some((t) => t.event === "APPROVE")) return;
  fs.writeSync(1, `${JSON.stringify({ runId: run.id, killed: "after the APPROVE commit" })}\n`);
  process.kill(process.pid, "SIGKILL");
});
await rt.engine.decide(waiting.reviewId!, { decision: "approve", reviewer: "ana" });
fs.writeSync(1, "not killed\n");
process.exit(3);
