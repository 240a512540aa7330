// The `switchyard` command line (@switchyard/client's bin, its built dist/cli.js) against a real
// server: the app's route handlers behind an HTTP server in this process (test/support/app-server.ts).
// Runs, reviews, workflows and schedules; `runs watch` streaming a run's transitions until it ends;
// --json; and the exit codes the README documents.
// The commands run through the bin's exported main() in this process (the same dist/cli.js, over
// HTTP to the server, with the environment and the output lines main() is given): a process each
// cost ~0.2 CPU-s, 45 of them. The process-level contract (the bin runs with node as `npx
// switchyard` runs it, prints to stdout/stderr, exits with the code main() resolved with, and
// exits once a watched run has ended) is checked by the few commands run as real processes: bin().
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import type { Runtime } from "../lib/runtime";
import { main } from "../clients/typescript/dist/cli.js";
import { testRuntime } from "./helpers";
import { serveApp, type AppServer } from "./support/app-server";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "node_modules/.bin/switchyard");

const REVIEW_FLOW = `id: cli-review
initial_stage: DRAFT
stages: [DRAFT, REVIEW, DONE, REDO]
transitions: { DRAFT: [REVIEW], REVIEW: [DONE, REDO], DONE: [], REDO: [] }
steps:
  DRAFT:
    llm: { prompt: "Draft a note about {{input.topic}}" }
    next: REVIEW
  REVIEW:
    review: { prompt: "Ship the note about {{input.topic}}?", decisions: [approve, reject] }
    on: { approve: DONE, reject: REDO }
`;
const failing = (port: number) => `id: cli-fail
initial_stage: CALL
stages: [CALL, DONE]
transitions: { CALL: [DONE], DONE: [] }
steps:
  CALL:
    http: { url: "http://127.0.0.1:${port}/nowhere", method: GET }
    next: DONE
`;

interface Result {
  code: number;
  out: string;
  err: string;
}

let rt: Runtime;
let app: AppServer;
let dir: string;

/** Run a command line through the bin's main() in this process, with SWITCHYARD_URL set to the test server; `onLine` sees each stdout line as it comes. */
async function cli(args: string[], opts: { env?: Record<string, string>; onLine?: (line: string) => void } = {}): Promise<Result> {
  let out = "";
  let err = "";
  const code = await main(args, { ...process.env, SWITCHYARD_URL: app.url, ...opts.env }, {
    out: (l) => {
      out += `${l}\n`;
      opts.onLine?.(l);
    },
    err: (l) => (err += `${l}\n`),
  });
  return { code, out, err };
}

/** Run the bin as a process (node_modules/.bin/switchyard, as npx does) with SWITCHYARD_URL set to the test server. */
function bin(args: string[], opts: { env?: Record<string, string>; onLine?: (line: string) => void } = {}): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { env: { ...process.env, SWITCHYARD_URL: app.url, ...opts.env }, cwd: dir });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      const before = out.length;
      out += c.toString();
      if (opts.onLine) for (const l of out.slice(out.lastIndexOf("\n", before - 1) + 1).split("\n").slice(0, -1)) opts.onLine(l);
    });
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, out, err }));
  });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-cli-"));
  rt = await testRuntime();
  await saveUserWorkflow(rt.db, "yaml", REVIEW_FLOW);
  await saveUserWorkflow(rt.db, "yaml", failing(1));
  app = await serveApp(rt);
});

afterAll(async () => {
  await app?.close();
  await rt?.close();
});

describe("switchyard runs and reviews", () => {
  it("is the package's bin, runnable with node 20 from the built dist/", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "clients/typescript/package.json"), "utf8")) as { bin: Record<string, string> };
    expect(pkg.bin).toEqual({ switchyard: "./dist/cli.js" });
    expect(fs.realpathSync(BIN)).toBe(path.join(ROOT, "clients/typescript/dist/cli.js"));
    expect(fs.readFileSync(BIN, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("starts a run, reads it, lists it, watches it through a review decided meanwhile, and exits 0 when it completes", async () => {
    const started = await cli(["runs", "start", "cli-review", "--set", "topic=kettles", "--name", "Kettle note", "--json"]);
    expect(started.code).toBe(0);
    const run = JSON.parse(started.out) as { id: string; name: string; status: string };
    expect(run).toMatchObject({ name: "Kettle note" });

    // watch until it waits, then decide the review from the command line while a second watch runs
    const waiting = await cli(["runs", "watch", run.id, "--until-waiting"]);
    expect(waiting.code).toBe(0);
    expect(waiting.out).toMatch(new RegExp(`^run ${run.id} \\(cli-review: Kettle note\\)`));
    expect(waiting.out).toContain("DRAFT → REVIEW");
    expect(waiting.out.trim().split("\n").at(-1)).toBe(`run ${run.id} waiting in REVIEW`);

    const got = await cli(["runs", "get", run.id]);
    expect(got.code).toBe(0);
    expect(got.out).toMatch(/status\s+waiting in REVIEW/);
    const listed = JSON.parse((await cli(["runs", "list", "--workflow", "cli-review", "--json"])).out) as { runs: { id: string }[]; total: number };
    expect(listed.runs.map((r) => r.id)).toEqual([run.id]);

    const reviews = await cli(["reviews", "list", "--run", run.id, "--json"]);
    const [review] = JSON.parse(reviews.out) as { id: string; decisions: string[] }[];
    expect(review!.decisions).toEqual(["approve", "reject"]);
    expect((await cli(["reviews", "list"])).out).toContain(review!.id);

    const lines: string[] = [];
    let decided: Promise<Result> | null = null;
    // a real process: its stdout streams line by line, and it exits 0 once the run has completed
    const watched = await bin(["runs", "watch", run.id], {
      onLine: (l) => {
        lines.push(l);
        // the stream is open once the transitions so far are printed: decide then
        if (l.includes("DRAFT → REVIEW") && !decided) decided = cli(["reviews", "decide", review!.id, "approve", "-m", "ship it", "--reviewer", "ana"]);
      },
    });
    const decision = await decided!;
    expect(decision.code).toBe(0);
    expect(decision.out).toBe(`decided ${review!.id}: approve → run ${run.id} completed in DONE\n`);
    expect(watched.code).toBe(0);
    expect(lines.at(-2)).toMatch(/REVIEW → DONE/);
    expect(lines.at(-1)).toBe(`run ${run.id} completed in DONE`);
    // each transition once, in order
    const seqs = lines.map((l) => /#(\d+) /.exec(l)?.[1]).filter(Boolean).map(Number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);

    // deciding it again: refused (409) → exit 4
    const again = await cli(["reviews", "decide", review!.id, "approve"]);
    expect(again.code).toBe(4);
    expect(again.err).toMatch(/409/);
  });

  it("--json watch prints one JSON object a line; a failed run exits 8, an aborted one 9", async () => {
    // a real process: the exit code of a watched run that failed, JSON lines on its stdout
    const failed = await bin(["runs", "start", "cli-fail", "--watch", "--json"]);
    expect(failed.code).toBe(8);
    const objects = failed.out.trim().split("\n").map((l) => JSON.parse(l) as { type: string; run?: { status: string; error: { message: string } } });
    expect(objects.at(-1)).toMatchObject({ type: "end", run: { status: "failed" } });
    expect(objects.slice(0, -1).every((o) => o.type === "transition")).toBe(true);

    const started = JSON.parse((await cli(["runs", "start", "cli-review", "-i", '{"topic":"abort me"}', "--json"])).out) as { id: string };
    const aborted = await cli(["runs", "abort", started.id, "--reason", "not needed"]);
    expect(aborted.code).toBe(0);
    expect(aborted.out).toMatch(new RegExp(`^aborted ${started.id}: aborted`));
    const watched = await cli(["runs", "watch", started.id]);
    expect(watched.code).toBe(9);
    expect(watched.out.trim().split("\n").at(-1)).toMatch(new RegExp(`^run ${started.id} aborted`));
  });

  it("exit codes: 3 not found, 4 refused with the server's message, 2 usage, 6 unreachable", async () => {
    // (as real processes: not found, on stderr, and --help, on stdout)
    const missing = await bin(["runs", "get", "00000000-0000-4000-8000-000000000000"]);
    expect(missing.code).toBe(3);
    expect(missing.err).toMatch(/not found.*404/);
    const unknown = await cli(["runs", "start", "no-such-workflow"]);
    expect([3, 4]).toContain(unknown.code);
    const bad = await cli(["runs", "start", "cli-review", "--input", "[1,2]"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--input must be a JSON object/);
    expect((await cli(["runs", "get"])).code).toBe(2);
    expect((await cli(["runs", "fly"])).code).toBe(2);
    expect((await cli(["runs", "list", "--no-such-option"])).code).toBe(2);
    const down = await cli(["runs", "list", "--url", "http://127.0.0.1:1"]);
    expect(down.code).toBe(6);
    expect(down.err).toMatch(/ECONNREFUSED|fetch failed/);
    const help = await bin(["--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("exit codes: 0 done");
  });
});

describe("switchyard workflows and schedules", () => {
  it("imports a definition (unchanged the second time), validates files with the server's line numbers (exit 7), exports as Mermaid", async () => {
    const file = path.join(dir, "notes.yaml");
    fs.writeFileSync(file, REVIEW_FLOW.replace("id: cli-review", "id: cli-notes"));
    const first = await cli(["workflows", "import", file]);
    expect(first.code).toBe(0);
    expect(first.out).toBe("saved cli-notes v1\n");
    expect((await cli(["workflows", "import", file])).out).toBe("unchanged cli-notes v1\n");

    const broken = path.join(dir, "broken.yaml");
    fs.writeFileSync(broken, "id: cli-broken\ninitial_stage: A\nstages: [A, B]\ntransitions: { A: [C], B: [] }\n");
    const checked = await cli(["workflows", "validate", file, broken]);
    expect(checked.code).toBe(7);
    expect(checked.out).toContain(`✔ ${file}: cli-notes is valid`);
    expect(checked.out).toMatch(new RegExp(`${broken.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: error: line \\d+: .*C`));
    expect(checked.out).toContain(`✖ ${broken}: 1 error`);
    // nothing was saved by the dry run
    expect((await cli(["runs", "start", "cli-broken"])).code).not.toBe(0);
    expect((await cli(["workflows", "validate", file])).code).toBe(0);

    const mmd = await cli(["workflows", "export", "cli-notes", "--format", "mermaid"]);
    expect(mmd.code).toBe(0);
    expect(mmd.out).toContain("stateDiagram-v2");
    const out = path.join(dir, "notes.json");
    expect((await cli(["workflows", "export", "cli-notes", "-o", out])).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(out, "utf8"))).toMatchObject({ id: "cli-notes", initial_stage: "DRAFT" });
    expect((await cli(["workflows", "export", "no-such"])).code).toBe(3);
  });

  it("creates, lists, pauses, resumes, triggers and deletes a schedule", async () => {
    const created = await cli(["schedules", "create", "--workflow", "cli-review", "--cron", "0 9 * * 1-5", "--timezone", "Europe/Berlin", "--set", "topic=digest", "--name", "Morning notes", "--json"]);
    expect(created.err).toBe("");
    expect(created.code).toBe(0);
    const s = JSON.parse(created.out) as { id: string; paused: boolean; nextFires: string[] };
    expect(s).toMatchObject({ paused: false });
    expect(s.nextFires).toHaveLength(3);
    const listed = await cli(["schedules", "list"]);
    expect(listed.out).toMatch(new RegExp(`${s.id}\\s+Morning notes\\s+cli-review\\s+0 9 \\* \\* 1-5 \\(Europe/Berlin\\)`));
    expect((await cli(["schedules", "pause", s.id])).out).toBe(`paused schedule ${s.id}\n`);
    expect((await cli(["schedules", "list"])).out).toMatch(/paused$/m);
    expect((await cli(["schedules", "resume", s.id])).out).toMatch(new RegExp(`^resumed schedule ${s.id} \\(next `));
    const triggered = await cli(["schedules", "trigger", s.id, "--json"]);
    expect(triggered.code).toBe(0);
    const run = JSON.parse(triggered.out) as { id: string; workflow: string; input: { topic: string } };
    expect(run).toMatchObject({ workflow: "cli-review", input: { topic: "digest" } });
    expect((await cli(["schedules", "delete", s.id])).out).toBe(`deleted schedule ${s.id}\n`);
    expect((await cli(["schedules", "pause", s.id])).code).toBe(3);
    const refused = await cli(["schedules", "create", "--workflow", "cli-review", "--cron", "not a cron"]);
    expect(refused.code).toBe(4);
    expect(refused.err).toMatch(/cron/);
    expect((await cli(["schedules", "create", "--workflow", "cli-review"])).code).toBe(2);
  });
});

describe("switchyard with accounts on", () => {
  it("an operator token by --token or SWITCHYARD_TOKEN works; exit 5 without a token (401), with a wrong one, or with a role too low (403)", async () => {
    await rt.accounts.createUser({ name: "ops", password: "a long enough passphrase", role: "operator" });
    const { token } = await rt.accounts.createToken("ops", "cli", "operator");
    const viewer = (await rt.accounts.createToken("ops", "cli-viewer", "viewer")).token;
    process.env.SWITCHYARD_AUTH = "on";
    try {
      expect((await cli(["runs", "list", "--token", token])).code).toBe(0);
      expect((await cli(["runs", "list"], { env: { SWITCHYARD_TOKEN: token } })).code).toBe(0);
      // a role too low: 403
      const low = await cli(["runs", "start", "cli-review", "--token", viewer]);
      expect(low.code).toBe(5);
      expect(low.err).toMatch(/403/);
      const none = await cli(["runs", "list"]);
      expect(none.code).toBe(5);
      expect(none.err).toMatch(/401/);
      expect((await cli(["runs", "list", "--token", "sy_not-a-token"])).code).toBe(5);
      expect((await cli(["runs", "list"], { env: { SWITCHYARD_TOKEN: "sy_not-a-token" } })).code).toBe(5);
    } finally {
      delete process.env.SWITCHYARD_AUTH;
    }
    expect((await cli(["runs", "list"])).code).toBe(0);
  });
});
