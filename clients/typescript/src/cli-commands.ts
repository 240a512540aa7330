// The CLI's commands on runs and reviews (workflows and schedules: cli-admin.ts); each names its
// options and positionals and runs on a Switchyard client.
import { ADMIN_COMMANDS } from "./cli-admin.js";
import { inputOf, int, json, jsonArg, str, type Command, type Values } from "./cli-args.js";
import { EXIT, reviewRows, runLines, runRows, UsageError, where } from "./cli-output.js";
import { watchRun } from "./cli-watch.js";
import type { Switchyard } from "./client.js";
import type { Io } from "./cli-output.js";
import type { ReviewStatus, RunStatus } from "./types.js";

export type { Command, Values } from "./cli-args.js";

const watchOptions = {
  "until-waiting": { type: "boolean", help: "stop (exit 0) once the run waits for a review, an event or a worker" },
} as const satisfies Command["options"];

async function watchOrPrint(client: Switchyard, io: Io, id: string, v: Values): Promise<number> {
  return watchRun(client, id, io, { untilWaiting: !!v["until-waiting"] });
}

export const COMMANDS: Record<string, Command> = {
  "runs start": {
    args: "<workflow>",
    summary: "start a run",
    positionals: [1, 1],
    options: {
      input: { type: "string", short: "i", help: "the run's input: JSON, @file.json, or - for standard input" },
      set: { type: "string", multiple: true, help: "key=value into the input (repeatable; JSON values are parsed)" },
      name: { type: "string", help: "what the run is called" },
      "idempotency-key": { type: "string", help: "a repeat with the same key answers with the same run" },
      watch: { type: "boolean", short: "w", help: "then watch it until it ends (exit codes as runs watch)" },
      ...watchOptions,
    },
    async run(client, io, [workflow], v) {
      const run = await client.startRun(workflow!, inputOf(v), { name: str(v, "name"), idempotencyKey: str(v, "idempotency-key") });
      if (!v.watch) {
        if (io.json) json(io, run);
        else io.out(`started ${run.id} (${run.workflow}${run.name ? `: ${run.name}` : ""}) ${where(run)}`);
        return EXIT.ok;
      }
      return watchOrPrint(client, io, run.id, v);
    },
  },
  "runs get": {
    args: "<run id>",
    summary: "a run: status, state, accepted events, output",
    positionals: [1, 1],
    async run(client, io, [id]) {
      const run = await client.getRun(id!);
      if (io.json) json(io, run);
      else runLines(run).forEach((l) => io.out(l));
      return EXIT.ok;
    },
  },
  "runs list": {
    args: "",
    summary: "runs, newest first",
    positionals: [0, 0],
    options: {
      status: { type: "string", help: "running, waiting, completed, failed, aborted (comma-separated)" },
      workflow: { type: "string", help: "one workflow's runs" },
      limit: { type: "string", help: "at most this many (default 50)" },
      offset: { type: "string", help: "skip this many" },
    },
    async run(client, io, _args, v) {
      const status = str(v, "status")?.split(",").map((s) => s.trim()).filter(Boolean) as RunStatus[] | undefined;
      const list = await client.listRuns({ status, workflow: str(v, "workflow"), limit: int(v, "limit") ?? 50, offset: int(v, "offset") });
      if (io.json) json(io, list);
      else {
        runRows(list.runs).forEach((l) => io.out(l));
        if (list.total > list.runs.length) io.out(`(${list.runs.length} of ${list.total})`);
      }
      return EXIT.ok;
    },
  },
  "runs watch": {
    args: "<run id>",
    summary: "print a run's transitions as they happen, until it ends (exit 0 completed, 8 failed, 9 aborted)",
    positionals: [1, 1],
    options: watchOptions,
    run: (client, io, [id], v) => watchOrPrint(client, io, id!, v),
  },
  "runs abort": {
    args: "<run id>",
    summary: "abort a run",
    positionals: [1, 1],
    options: { reason: { type: "string", help: "why (recorded)" } },
    async run(client, io, [id], v) {
      const out = await client.abortRun(id!, str(v, "reason"));
      if (io.json) json(io, out);
      else io.out(`aborted ${out.run.id}: ${where(out.run)}`);
      return EXIT.ok;
    },
  },
  "reviews list": {
    args: "",
    summary: "reviews (pending by default), oldest first",
    positionals: [0, 0],
    options: {
      status: { type: "string", help: "pending, decided or cancelled (default pending)" },
      run: { type: "string", help: "one run's reviews" },
      limit: { type: "string", help: "at most this many" },
    },
    async run(client, io, _args, v) {
      const reviews = await client.listReviews({ status: (str(v, "status") ?? "pending") as ReviewStatus, runId: str(v, "run"), limit: int(v, "limit") });
      if (io.json) json(io, reviews);
      else reviewRows(reviews).forEach((l) => io.out(l));
      return EXIT.ok;
    },
  },
  "reviews decide": {
    args: "<review id> <decision>",
    summary: "decide a review (approve, reject, …: the review's decisions)",
    positionals: [2, 2],
    options: {
      feedback: { type: "string", short: "m", help: "what the reviewer says" },
      reviewer: { type: "string", help: "who decides (with accounts on, the token's owner is recorded)" },
      data: { type: "string", help: "decision-specific fields: JSON, @file.json or -" },
    },
    async run(client, io, [id, decision], v) {
      const data = str(v, "data") !== undefined ? jsonArg(str(v, "data")!, "--data") : undefined;
      if (data !== undefined && (typeof data !== "object" || data === null || Array.isArray(data))) throw new UsageError("--data must be a JSON object");
      const out = await client.decide(id!, decision!, { feedback: str(v, "feedback"), reviewer: str(v, "reviewer"), ...(data ? { data: data as Record<string, unknown> } : {}) });
      if (io.json) json(io, out);
      else io.out(`decided ${out.review.id}: ${decision} → run ${out.run.id} ${where(out.run)}`);
      return EXIT.ok;
    },
  },
  ...ADMIN_COMMANDS,
};
