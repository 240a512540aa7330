// npm run validate -- <file>: the server's checks offline, in a team's own CI: the same
// messages with the same line numbers as POST /api/workflows, exit 1 on errors, warnings printed
// with exit 0.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../lib/runtime";
import { tempDbUrl } from "./helpers";
import { flowApi, post, type Handler } from "./support/flow-api";

const ROOT = path.resolve(import.meta.dirname, "..");
const url = tempDbUrl("validate-cli");
process.env.DATABASE_URL = url;
process.env.SWITCHYARD_SEED_GUIDE = "0";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sy-validate-"));

let workflows: { POST: Handler };
let rt: Runtime;
beforeAll(async () => {
  ({ workflows, rt } = await flowApi(url));
});
afterAll(async () => {
  await rt?.close();
});

function validate(...args: string[]) {
  const r = spawnSync(process.execPath, [path.join(ROOT, "node_modules/tsx/dist/cli.mjs"), path.join(ROOT, "scripts/validate.ts"), ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, SWITCHYARD_SECRET_CLI_TOKEN: "" } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function file(name: string, text: string) {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
}

const BAD_YAML = `id: cli-check
stages: [DRAFT, SEND, DONE]
initial_stage: DRAFT
transitions: { DRAFT: [SEND], SEND: [DONE], DONE: [] }
steps:
  DRAFT:
    llm: { prompt: "Write about {{input.topic}} {{steps.SEND.output}}" }
    next: SEND
  SEND:
    http: { url: "http://169.254.169.254/x" }
    next: NOWHERE
`;
const BAD_MERMAID = `---
title: CLI notes
---
stateDiagram-v2
    [*] --> DRAFT
    DRAFT --> NOTE
    NOTE --> [*]
`;

// The command is a process of its own (tsx compiling the registry: seconds of CPU each start), so
// it runs twice for the whole file, each time on several files as a team's CI would call it: once
// on the three broken files and the untitled diagram (exit 1: any file with an error fails the
// call; each file's lines carry its path), once on the valid ones with --id (exit 0: warnings
// alone do not fail it). The per-file checks read their file's lines from those outputs.
const BAD = [
  ["bad.yaml", BAD_YAML, "yaml"],
  ["bad.json", JSON.stringify({ id: "cli-json", stages: ["A"], initial_stage: "B", transitions: { A: [] } }, null, 2), "json"],
  ["bad.mmd", BAD_MERMAID, "mermaid"],
] as const;
const OK_YAML = `id: cli-ok\nstages: [CALL, DONE]\ninitial_stage: CALL\ntransitions: { CALL: [DONE], DONE: [] }\nsteps:\n  CALL:\n    http: { url: "https://example.com/x", headers: { Authorization: "{{secrets.CLI_UNSET_TOKEN}}" } }\n    next: DONE\n`;
const UNTITLED = "stateDiagram-v2\n    [*] --> A\n    A --> [*]\n";
let failing: ReturnType<typeof validate>;
let passing: ReturnType<typeof validate>;
/** the lines `validate` printed about `p` (each starts with the file's path) */
const linesOf = (out: string, p: string) => out.split("\n").filter((l) => l.startsWith(`${p}: `) || l.startsWith(`✖ ${p}: `) || l.startsWith(`✔ ${p}: `));

describe("npm run validate", () => {
  beforeAll(() => {
    failing = validate(...BAD.map(([name, text]) => file(name, text)), file("untitled.mmd", UNTITLED));
    passing = validate(file("ok.yaml", OK_YAML), path.join(dir, "untitled.mmd"), path.join(ROOT, "examples/workflows/support-triage.yaml"), "--id", "named-here");
  }, 120_000);

  it("a call with files that have errors exits 1, and says so for each of them", () => {
    expect(failing.code, failing.err).toBe(1);
    for (const name of [...BAD.map(([n]) => n), "untitled.mmd"]) expect(linesOf(failing.out, path.join(dir, name)).at(-1)).toMatch(/^✖ .*: \d+ errors?/);
  });

  it.each(BAD)("%s: the server's messages and lines", async (name, text, format) => {
    const res = await workflows.POST(post("/api/workflows", { [format]: text }));
    expect(res.status).toBe(422);
    const issues = ((await res.json()) as { details: { issues: { message: string; line?: number }[] } }).details.issues;
    const printed = linesOf(failing.out, path.join(dir, name))
      .filter((l) => l.includes(": error: "))
      .map((l) => l.slice(l.indexOf(": error: ") + 9));
    expect(printed).toEqual(issues.map((i) => (i.line ? `line ${i.line}: ${i.message}` : i.message)));
    expect(printed.length).toBeGreaterThan(0);
  }, 60_000);

  it("valid files with warnings: printed, exit 0; an untitled diagram needs --id", () => {
    const ok = path.join(dir, "ok.yaml");
    expect(passing.code, passing.out + passing.err).toBe(0);
    expect(passing.out).toContain(`${ok}: warning: line 7: steps.CALL.http.headers.Authorization: secret CLI_UNSET_TOKEN is not set in this server's environment (SWITCHYARD_SECRET_CLI_UNSET_TOKEN): the call fails until it is`);
    expect(passing.out).toContain(`✔ ${ok}: cli-ok is valid (1 warning)`);
    // without --id the diagram is an error (in the failing call); with it, valid
    expect(linesOf(failing.out, path.join(dir, "untitled.mmd")).some((l) => l.includes(": error: "))).toBe(true);
    expect(passing.out).toContain(`✔ ${path.join(dir, "untitled.mmd")}: named-here is valid`);
    expect(passing.out).toContain(`✔ ${path.join(ROOT, "examples/workflows/support-triage.yaml")}: `);
  });
});
