// A worker process for `npm run bench:cluster`: the real worker (lib/runtime, role worker) with
// swiss-army effects that answer at once. Prints its stats as one JSON line when told to stop.
import { createRuntime } from "../lib/runtime";
import { instantEffects } from "./instant-effects";
import { provideWorkflows } from "../lib/machines/registry";
import * as workflows from "../workflows/registry";

provideWorkflows(workflows);

const rt = await createRuntime({
  role: "worker",
  seedGuide: false,
  serviceChoresMs: 0,
  alerts: { start: false },
  webhooks: { start: false },
  effects: () => ({ "swiss-army": instantEffects() }),
  worker: { concurrency: Number(process.env.BENCH_CONCURRENCY ?? 256) },
  log: (m) => console.error(m),
});
console.log("READY");
process.on("SIGTERM", () => {
  const w = rt.cluster!.worker!;
  const stats = { ...w.stats };
  void rt.close().finally(() => {
    console.log(`STATS ${JSON.stringify(stats)}`);
    process.exit(0);
  });
});
