import { migrateDatabase } from "../lib/db/migrations";
import { createRuntime } from "../lib/runtime";
const rt = await createRuntime({ url: `file:/tmp/dr/s${Date.now()}.db`, migrate: migrateDatabase, outboxIntervalMs: 0, env: {} as NodeJS.ProcessEnv });
const { run } = await rt.engine.start("deep-research", { topic: "How does Switchyard resume runs after a restart and keep timers durable?" });
let r = await rt.engine.waitFor(run.id, (v) => v.status !== "running");
console.log((r.context as any).plan.dimensions, (r.context as any).plan.tasks.map((t: any) => t.id + ": " + t.query));
await rt.engine.decide(r.reviewId!, { decision: "approve" });
for (;;) {
  r = await rt.engine.waitFor(run.id, (v) => v.status !== "running");
  console.log(r.state, r.status);
  if (r.status !== "waiting") break;
  const kind = r.state.join();
  await rt.engine.decide(r.reviewId!, { decision: kind.includes("checkin") ? "continue" : "retry" });
}
const c: any = r.context;
console.log(c.facts.length, c.sources.length, c.iteration, c.reflections.length, c.tasks.map((t: any) => t.id + ":" + t.status).join(" "));
const ts = await rt.store.transitions(run.id);
for (const t of ts.slice(12)) console.log(t.seq, t.from.join(","), ">", t.to.join(","), t.event, "|", t.reason);
console.log((c.report ?? "").slice(0, 3000));
await rt.close();
