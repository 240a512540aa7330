// The CLI's commands: each names its options and positionals and runs on a Switchyard client.
import fs from "node:fs";
import path from "node:path";
import type { Switchyard } from "./client.js";
import { EXIT, reviewRows, runLines, runRows, scheduleRows, UsageError, where, type Io } from "./cli-output.js";
import { watchRun } from "./cli-watch.js";
import type { NewSchedule, ReviewStatus, RunStatus, ScheduleCatchup, ScheduleOverlap, WorkflowSource } from "./types.js";

export type Values = Record<string, string | boolean | string[] | undefined>;
type Option = { type: "string" | "boolean"; short?: string; multiple?: boolean; help: string };

export interface Command {
  args: string;
  summary: string;
  options?: Record<string, Option>;
  /** how many positionals it takes: [at least, at most] */
  positionals: [number, number];
  run(client: Switchyard, io: Io, args: string[], v: Values): Promise<number>;
}

const str = (v: Values, k: string) => (typeof v[k] === "string" ? (v[k] as string) : undefined);
const int = (v: Values, k: string) => {
  const s = str(v, k);
  if (s === undefined) return undefined;
  if (!/^\d+$/.test(s)) throw new UsageError(`--${k} must be a whole number (got "${s}")`);
  return Number(s);
};
const json = (io: Io, data: unknown) => io.out(JSON.stringify(data, null, 2));

/** JSON text, "@file" (its contents) or "-" (standard input), parsed. */
function jsonArg(text: string, what: string): unknown {
  const raw = text === "-" ? fs.readFileSync(0, "utf8") : text.startsWith("@") ? readFile(text.slice(1)) : text;
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw new UsageError(`${what} is not JSON: ${(e as Error).message}`);
  }
}

function readFile(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

/** --input (JSON, @file or -) with --set key=value on top (a value that parses as JSON is taken as such). */
function inputOf(v: Values): Record<string, unknown> {
  const base = str(v, "input") !== undefined ? jsonArg(str(v, "input")!, "--input") : {};
  if (!base || typeof base !== "object" || Array.isArray(base)) throw new UsageError("--input must be a JSON object");
  const out = { ...(base as Record<string, unknown>) };
  for (const pair of (v.set as string[] | undefined) ?? []) {
    const eq = pair.indexOf("=");
    if (eq < 1) throw new UsageError(`--set takes key=value (got "${pair}")`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    out[pair.slice(0, eq)] = value;
  }
  return out;
}

const FORMATS: Record<string, "yaml" | "json" | "mermaid"> = { ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".mmd": "mermaid", ".mermaid": "mermaid", ".md": "mermaid" };

function sourceOf(file: string, id: string | undefined): WorkflowSource {
  const format = FORMATS[path.extname(file).toLowerCase()];
  if (!format) throw new UsageError(`${file}: name the file .yaml, .yml, .json or .mmd`);
  const text = readFile(file);
  const idPart = id ? { id } : {};
  return format === "yaml" ? { yaml: text, ...idPart } : format === "json" ? { json: text, ...idPart } : { mermaid: text, ...idPart };
}

const issue = (i: { message: string; line?: number }) => `${i.line ? `line ${i.line}: ` : ""}${i.message}`;

const watchOptions = {
  "until-waiting": { type: "boolean", help: "stop (exit 0) once the run waits for a review, an event or a worker" },
} as const satisfies Record<string, Option>;

async function watchOrPrint(client: Switchyard, io: Io, id: string, v: Values): Promise<number> {
  return watchRun(client, id, io, { untilWaiting: !!v["until-waiting"] });
}

const setSchedule = (paused: boolean): Command["run"] => async (client, io, [id]) => {
  const s = await client.updateSchedule(id!, { paused });
  if (io.json) json(io, s);
  else io.out(`${paused ? "paused" : "resumed"} schedule ${s.id}${paused ? "" : ` (next ${s.nextFireAt ?? "—"})`}`);
  return EXIT.ok;
};

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
  "workflows import": {
    args: "<file.yaml|.json|.mmd>",
    summary: "save a workflow definition (a new version; unchanged: nothing new)",
    positionals: [1, 1],
    options: { id: { type: "string", help: "the id of a Mermaid diagram that names none" } },
    async run(client, io, [file], v) {
      const out = await client.importWorkflow(sourceOf(file!, str(v, "id")));
      if (io.json) json(io, out);
      else {
        const version = out.versions?.at(-1)?.version;
        io.out(`${out.created ? "saved" : "unchanged"} ${out.id}${version ? ` v${version}` : ""}`);
        for (const w of out.warnings ?? []) io.err(`${file}: warning: ${issue(w)}`);
      }
      return EXIT.ok;
    },
  },
  "workflows export": {
    args: "<workflow id>",
    summary: "a workflow as JSON or Mermaid",
    positionals: [1, 1],
    options: {
      format: { type: "string", short: "f", help: "json (default) or mermaid" },
      out: { type: "string", short: "o", help: "write it to this file instead of standard output" },
    },
    async run(client, io, [id], v) {
      const format = str(v, "format") ?? "json";
      if (format !== "json" && format !== "mermaid") throw new UsageError(`--format is json or mermaid (got "${format}")`);
      const text = await client.exportWorkflow(id!, format);
      const file = str(v, "out");
      if (file) {
        fs.writeFileSync(file, text.endsWith("\n") ? text : `${text}\n`);
        if (!io.json) io.err(`wrote ${file}`);
      } else io.out(text.replace(/\n$/, ""));
      return EXIT.ok;
    },
  },
  "workflows validate": {
    args: "<file> [more files]",
    summary: "the server's checks of definitions, nothing saved (exit 7 when one has errors)",
    positionals: [1, 100],
    options: { id: { type: "string", help: "the id of a Mermaid diagram that names none" } },
    async run(client, io, files, v) {
      let bad = 0;
      const results = [];
      for (const file of files) {
        const r = await client.validateWorkflow(sourceOf(file, str(v, "id")));
        results.push({ file, ...r });
        if (!r.valid) bad++;
        if (io.json) continue;
        for (const e of r.errors) io.out(`${file}: error: ${issue(e)}`);
        for (const w of r.warnings) io.out(`${file}: warning: ${issue(w)}`);
        io.out(r.valid ? `✔ ${file}: ${r.id} is valid${r.warnings.length ? ` (${r.warnings.length} warning${r.warnings.length === 1 ? "" : "s"})` : ""}` : `✖ ${file}: ${r.errors.length} error${r.errors.length === 1 ? "" : "s"}`);
      }
      if (io.json) json(io, results);
      return bad ? EXIT.invalid : EXIT.ok;
    },
  },
  "schedules list": {
    args: "",
    summary: "schedules with their next fire time",
    positionals: [0, 0],
    async run(client, io) {
      const list = await client.listSchedules();
      if (io.json) json(io, list);
      else scheduleRows(list).forEach((l) => io.out(l));
      return EXIT.ok;
    },
  },
  "schedules create": {
    args: "",
    summary: "start a workflow on a cron pattern",
    positionals: [0, 0],
    options: {
      workflow: { type: "string", help: "the workflow to start (required)" },
      cron: { type: "string", help: 'the pattern, 5 fields or 6 with seconds (required), e.g. "0 9 * * 1-5"' },
      timezone: { type: "string", help: "IANA time zone (default UTC)" },
      input: { type: "string", short: "i", help: "the runs' input: JSON, @file.json or -" },
      set: { type: "string", multiple: true, help: "key=value into the input (repeatable)" },
      name: { type: "string", help: "the schedule's label" },
      "run-name": { type: "string", help: "a template for its runs' names" },
      version: { type: "string", help: "a user workflow's version to start (default: the latest)" },
      overlap: { type: "string", help: "skip (default), allow or queue-one" },
      catchup: { type: "string", help: "none (default) or latest" },
      paused: { type: "boolean", help: "create it paused" },
    },
    async run(client, io, _args, v) {
      const workflow = str(v, "workflow");
      const cron = str(v, "cron");
      if (!workflow || !cron) throw new UsageError("schedules create needs --workflow and --cron");
      const body: NewSchedule = { workflow, cron, input: inputOf(v), overlap: "skip", catchup: "none" };
      if (str(v, "timezone")) body.timezone = str(v, "timezone");
      if (str(v, "name")) body.name = str(v, "name");
      if (str(v, "run-name")) body.runName = str(v, "run-name");
      if (str(v, "version")) body.version = int(v, "version");
      if (str(v, "overlap")) body.overlap = str(v, "overlap") as ScheduleOverlap;
      if (str(v, "catchup")) body.catchup = str(v, "catchup") as ScheduleCatchup;
      if (v.paused) body.paused = true;
      const s = await client.createSchedule(body);
      if (io.json) json(io, s);
      else io.out(`created schedule ${s.id} (${s.name}): ${s.cron} ${s.timezone}, next ${s.paused ? "— (paused)" : (s.nextFireAt ?? "—")}`);
      return EXIT.ok;
    },
  },
  "schedules pause": { args: "<schedule id>", summary: "no fires until resumed", positionals: [1, 1], run: setSchedule(true) },
  "schedules resume": { args: "<schedule id>", summary: "fire again (the next fire counts from now)", positionals: [1, 1], run: setSchedule(false) },
  "schedules trigger": {
    args: "<schedule id>",
    summary: "start its run now",
    positionals: [1, 1],
    async run(client, io, [id]) {
      const run = await client.triggerSchedule(id!);
      if (io.json) json(io, run);
      else io.out(`started ${run.id} (${run.workflow}${run.name ? `: ${run.name}` : ""}) ${where(run)}`);
      return EXIT.ok;
    },
  },
  "schedules delete": {
    args: "<schedule id>",
    summary: "delete it (its runs stay)",
    positionals: [1, 1],
    async run(client, io, [id]) {
      await client.deleteSchedule(id!);
      if (io.json) json(io, { id, deleted: true });
      else io.out(`deleted schedule ${id}`);
      return EXIT.ok;
    },
  },
};
