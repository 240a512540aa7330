// A server stand-in for test/poison.test.ts: opens the runtime on argv[2] with the test-only
// crash hook on (an effect whose input holds MARKER SIGKILLs this process), resumes the runs there,
// optionally starts a run of the loop fixture (argv[3] = its id) whose first effect holds the marker, and
// prints the run (argv[4]) as JSON once it has finished; then it stops cleanly.
import { loopRuntime } from "../helpers";
import { provideWorkflows } from "../../lib/machines/registry";
import * as workflows from "../../workflows/registry";
import * as fixtures from "../fixtures/workflows/registry";

provideWorkflows({ ...workflows, ...fixtures });

export const MARKER = "poison-pill-marker-7f3a";
const [url, startId, watchId] = process.argv.slice(2);
const rt = await loopRuntime({ url, env: { SWITCHYARD_TEST_CRASH_EFFECT: MARKER } as unknown as NodeJS.ProcessEnv });
if (startId && startId !== "-") await rt.engine.start("loop", { request: `Summarise the notes (${MARKER})` }, { id: startId });
if (watchId) {
  const run = await rt.engine.waitFor(watchId, (r) => r.status === "failed" || r.status === "completed", 10_000);
  // still serving: a run without the marker goes its way
  const other = await rt.engine.start("loop", { request: "Summarise the release notes" });
  const next = await rt.engine.waitFor(other.run.id, (r) => r.state.includes("REVIEW"), 10_000);
  process.stdout.write(JSON.stringify({ run, other: next.status }) + "\n");
}
await rt.close();
