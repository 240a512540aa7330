// A server stand-in for test/poison.test.ts: opens the runtime on argv[2] with the test-only
// crash hook on (an effect whose input holds MARKER SIGKILLs this process), resumes the runs there,
// optionally starts a swiss-army run (argv[3] = its id) whose first effect holds the marker, and
// prints the run (argv[4]) as JSON once it has finished; then it stops cleanly.
import { swissRuntime } from "../helpers";
import { provideWorkflows } from "../../lib/machines/registry";
import * as workflows from "../../workflows/registry";

provideWorkflows(workflows);

export const MARKER = "poison-pill-marker-7f3a";
const [url, startId, watchId] = process.argv.slice(2);
const rt = await swissRuntime({ url, env: { SWITCHYARD_TEST_CRASH_EFFECT: MARKER } as unknown as NodeJS.ProcessEnv });
if (startId && startId !== "-") await rt.engine.start("swiss-army", { request: `Write a function (${MARKER})` }, { id: startId });
if (watchId) {
  const run = await rt.engine.waitFor(watchId, (r) => r.status === "failed" || r.status === "completed", 10_000);
  // still serving: a run without the marker goes its way
  const other = await rt.engine.start("swiss-army", { request: "Write a function that adds two numbers" });
  const next = await rt.engine.waitFor(other.run.id, (r) => r.state.includes("HUMAN_REVIEW"), 10_000);
  process.stdout.write(JSON.stringify({ run, other: next.status }) + "\n");
}
await rt.close();
