// A server stand-in for test/tasks.test.ts's SIGKILL test: opens the runtime on argv[2] (resuming
// the runs there) and, with argv[3] = "start", defines the workflow in argv[4] (YAML), starts a run
// that reaches its external step and lets a worker claim the task. It prints { runId, taskId,
// status, attempt, leaseToken } as JSON and then SIGKILLs itself: the process dies with the task
// claimed, no clean stop.
import { saveUserWorkflow } from "../../lib/flows/store";
import { flush, testRuntime } from "../helpers";
import { provideWorkflows } from "../../lib/machines/registry";
import * as workflows from "../../workflows/registry";

provideWorkflows(workflows);

const [url, mode, flow] = process.argv.slice(2);
const rt = await testRuntime({ url });
let runId = "";
let leaseToken: string | undefined;
if (mode === "start") {
  await saveUserWorkflow(rt.db, "yaml", flow!);
  const out = await rt.engine.start("ext-notify", { topic: "killed" });
  runId = out.run.id;
  await rt.engine.waitFor(runId, (r) => r.state.includes("NOTIFY"));
  // the worker takes it once the effect has queued it (however long that takes on a loaded
  // machine: the parent's timeout is the hang guard); the server dies while the worker holds it
  while (!leaseToken) {
    leaseToken = (await rt.tasks.claim("publisher", "survivor"))?.leaseToken;
    if (!leaseToken) await new Promise((r) => setTimeout(r, 20));
  }
} else {
  // resumed: the effect re-attaches to its task (the steps queued at resume run), then die again
  await flush(20);
}
const [task] = await rt.tasks.store.list({ queue: "publisher" });
process.stdout.write(JSON.stringify({ runId: runId || task?.runId, taskId: task?.id, status: task?.status, attempt: task?.attempt, leaseToken }) + "\n");
process.kill(process.pid, "SIGKILL");
