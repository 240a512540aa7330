// The CLI's commands on workflow definitions and schedules.
import fs from "node:fs";
import path from "node:path";
import { answering, inputOf, inputOptions, int, json, readFile, str, type Command } from "./cli-args.js";
import { EXIT, scheduleRows, started, UsageError } from "./cli-output.js";
import type { NewSchedule, ScheduleCatchup, ScheduleOverlap, WorkflowSource } from "./types.js";

const FORMATS: Record<string, "yaml" | "json" | "mermaid"> = { ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".mmd": "mermaid", ".mermaid": "mermaid", ".md": "mermaid" };

function sourceOf(file: string, id: string | undefined): WorkflowSource {
  const format = FORMATS[path.extname(file).toLowerCase()];
  if (!format) throw new UsageError(`${file}: name the file .yaml, .yml, .json or .mmd`);
  const text = readFile(file);
  const idPart = id ? { id } : {};
  return format === "yaml" ? { yaml: text, ...idPart } : format === "json" ? { json: text, ...idPart } : { mermaid: text, ...idPart };
}

const issue = (i: { message: string; line?: number }) => `${i.line ? `line ${i.line}: ` : ""}${i.message}`;

const setSchedule = (paused: boolean) =>
  answering(
    (client, [id]) => client.updateSchedule(id!, { paused }),
    (s) => `${paused ? "paused" : "resumed"} schedule ${s.id}${paused ? "" : ` (next ${s.nextFireAt ?? "—"})`}`,
  );

export const ADMIN_COMMANDS: Record<string, Command> = {
  "workflows import": {
    args: "<file.yaml|.json|.mmd>",
    summary: "save a workflow definition (a new version; unchanged: nothing new)",
    positionals: [1, 1],
    options: { id: { type: "string", help: "the id of a Mermaid diagram that names none" } },
    run: answering(
      (client, [file], v) => client.importWorkflow(sourceOf(file!, str(v, "id"))),
      (out, io, [file]) => {
        const version = out.versions?.at(-1)?.version;
        io.out(`${out.created ? "saved" : "unchanged"} ${out.id}${version ? ` v${version}` : ""}`);
        for (const w of out.warnings ?? []) io.err(`${file}: warning: ${issue(w)}`);
      },
    ),
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
    run: answering((client) => client.listSchedules(), scheduleRows),
  },
  "schedules create": {
    args: "",
    summary: "start a workflow on a cron pattern",
    positionals: [0, 0],
    options: {
      workflow: { type: "string", help: "the workflow to start (required)" },
      cron: { type: "string", help: 'the pattern, 5 fields or 6 with seconds (required), e.g. "0 9 * * 1-5"' },
      timezone: { type: "string", help: "IANA time zone (default UTC)" },
      ...inputOptions("the runs'"),
      name: { type: "string", help: "the schedule's label" },
      "run-name": { type: "string", help: "a template for its runs' names" },
      version: { type: "string", help: "a user workflow's version to start (default: the latest)" },
      overlap: { type: "string", help: "skip (default), allow or queue-one" },
      catchup: { type: "string", help: "none (default) or latest" },
      paused: { type: "boolean", help: "create it paused" },
    },
    run: answering(
      (client, _args, v) => {
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
        return client.createSchedule(body);
      },
      (s) => `created schedule ${s.id} (${s.name}): ${s.cron} ${s.timezone}, next ${s.paused ? "— (paused)" : (s.nextFireAt ?? "—")}`,
    ),
  },
  "schedules pause": { args: "<schedule id>", summary: "no fires until resumed", positionals: [1, 1], run: setSchedule(true) },
  "schedules resume": { args: "<schedule id>", summary: "fire again (the next fire counts from now)", positionals: [1, 1], run: setSchedule(false) },
  "schedules trigger": {
    args: "<schedule id>",
    summary: "start its run now",
    positionals: [1, 1],
    run: answering((client, [id]) => client.triggerSchedule(id!), started),
  },
  "schedules delete": {
    args: "<schedule id>",
    summary: "delete it (its runs stay)",
    positionals: [1, 1],
    run: answering(
      async (client, [id]) => (await client.deleteSchedule(id!), { id: id!, deleted: true }),
      ({ id }) => `deleted schedule ${id}`,
    ),
  },
};
