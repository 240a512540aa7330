// The CLI's commands on runs and reviews (workflows and schedules: cli-admin.ts); each names its
// options and positionals and runs on a Switchyard client.
import { ADMIN_COMMANDS } from "./cli-admin.js";
import { answering, inputOf, inputOptions, int, json, jsonArg, str, type Command, type Values } from "./cli-args.js";
import { EXIT, reviewRows, runLines, runRows, started, UsageError, where } from "./cli-output.js";
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
      ...inputOptions("the run's"),
      name: { type: "string", help: "what the run is called" },
      "idempotency-key": { type: "string", help: "a repeat with the same key answers with the same run" },
      watch: { type: "boolean", short: "w", help: "then watch it until it ends (exit codes as runs watch)" },
      ...watchOptions,
    },
    async run(client, io, [workflow], v) {
      const run = await client.startRun(workflow!, inputOf(v), { name: str(v, "name"), idempotencyKey: str(v, "idempotency-key") });
      if (!v.watch) {
        if (io.json) json(io, run);
        else io.out(started(run));
        return EXIT.ok;
      }
      return watchOrPrint(client, io, run.id, v);
    },
  },
  "runs get": {
    args: "<run id>",
    summary: "a run: status, state, accepted events, output",
    positionals: [1, 1],
    run: answering((client, [id]) => client.getRun(id!), runLines),
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
    run: answering(
      (client, _args, v) => {
        const status = str(v, "status")?.split(",").map((s) => s.trim()).filter(Boolean) as RunStatus[] | undefined;
        return client.listRuns({ status, workflow: str(v, "workflow"), limit: int(v, "limit") ?? 50, offset: int(v, "offset") });
      },
      (list) => [...runRows(list.runs), ...(list.total > list.runs.length ? [`(${list.runs.length} of ${list.total})`] : [])],
    ),
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
    run: answering(
      (client, [id], v) => client.abortRun(id!, str(v, "reason")),
      (out) => `aborted ${out.run.id}: ${where(out.run)}`,
    ),
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
    run: answering((client, _args, v) => client.listReviews({ status: (str(v, "status") ?? "pending") as ReviewStatus, runId: str(v, "run"), limit: int(v, "limit") }), reviewRows),
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
    run: answering(
      (client, [id, decision], v) => {
        const data = str(v, "data") !== undefined ? jsonArg(str(v, "data")!, "--data") : undefined;
        if (data !== undefined && (typeof data !== "object" || data === null || Array.isArray(data))) throw new UsageError("--data must be a JSON object");
        return client.decide(id!, decision!, { feedback: str(v, "feedback"), reviewer: str(v, "reviewer"), ...(data ? { data: data as Record<string, unknown> } : {}) });
      },
      (out, _io, [, decision]) => `decided ${out.review.id}: ${decision} → run ${out.run.id} ${where(out.run)}`,
    ),
  },
  ...ADMIN_COMMANDS,
};
