// An external worker for Switchyard in TypeScript, on the package @switchyard/client (clients/typescript).
//
//   SWITCHYARD_URL=http://localhost:3000 npx tsx examples/worker.ts --queue publisher
//   SWITCHYARD_TOKEN=sy_...   # with accounts on: an API token with the worker role
//
// Options: --queue NAME (required), --worker NAME, --concurrency N, --wait-ms MS, --once (handle
// one task, then exit), --timeout S (stop after S seconds; with --once and no task came: exit 3).
// Ctrl-C stops it cleanly: no new claims, the tasks in hand are finished and reported. The
// handler is the post-pipeline's NOTIFY step: it "notifies" by printing the post and answers
// { notified: true, … }. Replace `notify` with your own work.
import os from "node:os";
import { parseArgs } from "node:util";
import { Switchyard, TaskFailure, type TaskContext } from "@switchyard/client";

const { values: args } = parseArgs({
  options: {
    queue: { type: "string" },
    worker: { type: "string", default: `ts-${os.hostname()}-${process.pid}` },
    concurrency: { type: "string", default: "1" },
    "wait-ms": { type: "string", default: "20000" },
    once: { type: "boolean", default: false },
    timeout: { type: "string" },
  },
});
if (!args.queue) {
  console.error("usage: npx tsx examples/worker.ts --queue NAME [--worker NAME] [--concurrency N] [--wait-ms MS] [--once] [--timeout S]");
  process.exit(2);
}
const worker = args.worker!;
const log = (...parts: unknown[]) => console.log(new Date().toISOString().slice(11, 19), ...parts);

/**
 * The work: returns the step's output, or throws (TaskFailure with retryable: false for what
 * retrying cannot fix). A task's input is what its stage knows: `{ input: the run's input, steps:
 * { STAGE: { output } }, review: the last review }`.
 */
async function notify(taskInput: unknown, { task }: TaskContext) {
  const { input, steps } = (taskInput ?? {}) as { input?: { text?: unknown }; steps?: Record<string, { output?: unknown } | undefined> };
  // the post: the draft (as a reviewer may have edited it), else a run's own { text }
  const post = steps?.DRAFT?.output ?? input?.text;
  if (post === undefined || post === null) throw new TaskFailure("nothing to notify: no steps.DRAFT.output and no input.text", { retryable: false });
  log(`notify (run ${task.runId}, ${task.stage}, attempt ${task.attempt}):`, JSON.stringify(post).slice(0, 200));
  return { notified: true, by: worker, language: "typescript", post, published: steps?.PUBLISH?.output ?? null, attempt: task.attempt };
}

const client = new Switchyard({ baseUrl: process.env.SWITCHYARD_URL ?? "http://localhost:3000", token: process.env.SWITCHYARD_TOKEN || undefined });
const stop = new AbortController();
let signals = 0;
for (const sig of ["SIGINT", "SIGTERM"] as const) {
  process.on(sig, () => {
    if (++signals > 1) process.exit(130); // a second Ctrl-C: leave now
    log("stopping: no new claims (Ctrl-C again to leave at once)");
    stop.abort();
  });
}

if (args.timeout) setTimeout(() => stop.abort(), Number(args.timeout) * 1000).unref();

log(`worker ${worker} on queue ${args.queue} at ${client.baseUrl}`);
try {
  const stats = await client.work(args.queue, notify, {
    worker,
    waitMs: Number(args["wait-ms"]),
    concurrency: Number(args.concurrency),
    signal: stop.signal,
    ...(args.once ? { maxTasks: 1 } : {}),
    onReport: (task, outcome, detail) => log(`task ${task.id} ${outcome}${detail instanceof Error ? `: ${detail.message}` : ""}`),
  });
  log("stopped", stats);
  process.exit(args.once && stats.claimed === 0 ? 3 : 0);
} catch (e) {
  log("claim refused:", e instanceof Error ? e.message : e);
  process.exit(2);
}
