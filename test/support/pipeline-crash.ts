// A process SIGKILLed in the middle of the post pipeline (test/post-pipeline-crash.test.ts): on the
// database at argv[2] it saves the pipeline (the YAML), drafts offline, and two people approve; the post goes
// to argv[3]. argv[4] says when it dies:
//   after-approval  from the run bus the moment the second APPROVE's commit is done (PUBLISH entered, its call not made)
//   after-publish   the moment PUBLISH's result is committed (the run is in NOTIFY)
//   during-publish  it does not kill itself: the test's receiver kills it when the call arrives
import fs from "node:fs";
import { migrateDatabase } from "../../lib/db/migrations";
import { saveUserWorkflow } from "../../lib/flows/store";
import { createRuntime } from "../../lib/runtime";
import { POST_PIPELINE } from "./post-pipeline";
import { provideWorkflows } from "../../lib/machines/registry";
import * as workflows from "../../workflows/registry";

provideWorkflows(workflows);

const [url, publishUrl, mode] = process.argv.slice(2);
const say = (o: unknown) => fs.writeSync(1, `${JSON.stringify(o)}\n`);
const rt = await createRuntime({ url, env: {} as NodeJS.ProcessEnv, migrate: migrateDatabase, serviceChoresMs: 0, seedGuide: false, alerts: { start: false }, webhooks: { start: false } });
await saveUserWorkflow(rt.db, "yaml", POST_PIPELINE);
const { run } = await rt.engine.start("post-pipeline", { topic: "crash-safe kettles", publish_url: publishUrl });
say({ runId: run.id });
await rt.engine.waitFor(run.id, (r) => r.state.includes("REVIEW") && !!r.reviewId, 30_000);
rt.engine.bus.subscribe(run.id, (msg) => {
  if (msg.type !== "run") return;
  const hit =
    mode === "after-approval" ? msg.transitions.some((t) => t.event === "APPROVE" && t.to.includes("PUBLISH")) : mode === "after-publish" ? msg.transitions.some((t) => t.to.includes("NOTIFY")) : false;
  if (!hit) return;
  say({ killed: mode });
  process.kill(process.pid, "SIGKILL");
});
for (const reviewer of ["ana", "ben"]) {
  let [review] = await rt.store.listReviews({ runId: run.id, status: "pending" });
  for (let i = 0; !review && i < 100; i++) {
    await new Promise((r) => setTimeout(r, 20));
    [review] = await rt.store.listReviews({ runId: run.id, status: "pending" });
  }
  await rt.engine.decide(review!.id, { decision: "approve", reviewer });
}
say({ approved: 2 });
// during-publish: wait to be killed by the receiver
await new Promise((r) => setTimeout(r, 30_000));
fs.writeSync(1, "not killed\n");
process.exit(3);
