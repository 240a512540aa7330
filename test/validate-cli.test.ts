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

describe("npm run validate", () => {
  it.each([
    ["bad.yaml", BAD_YAML, "yaml"],
    ["bad.json", JSON.stringify({ id: "cli-json", stages: ["A"], initial_stage: "B", transitions: { A: [] } }, null, 2), "json"],
    ["bad.mmd", BAD_MERMAID, "mermaid"],
  ])("%s: the server's messages and lines, exit 1", async (name, text, format) => {
    const res = await workflows.POST(post("/api/workflows", { [format]: text }));
    expect(res.status).toBe(422);
    const issues = ((await res.json()) as { details: { issues: { message: string; line?: number }[] } }).details.issues;
    const r = validate(file(name, text));
    expect(r.code).toBe(1);
    const printed = r.out.split("\n").filter((l) => l.includes(": error: ")).map((l) => l.slice(l.indexOf(": error: ") + 9));
    expect(printed).toEqual(issues.map((i) => (i.line ? `line ${i.line}: ${i.message}` : i.message)));
    expect(printed.length).toBeGreaterThan(0);
  }, 60_000);

  it("a valid file with warnings: printed, exit 0; an untitled diagram needs --id", () => {
    const ok = file("ok.yaml", `id: cli-ok\nstages: [CALL, DONE]\ninitial_stage: CALL\ntransitions: { CALL: [DONE], DONE: [] }\nsteps:\n  CALL:\n    http: { url: "https://example.com/x", headers: { Authorization: "{{secrets.CLI_UNSET_TOKEN}}" } }\n    next: DONE\n`);
    const r = validate(ok);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`${ok}: warning: line 7: steps.CALL.http.headers.Authorization: secret CLI_UNSET_TOKEN is not set in this server's environment (SWITCHYARD_SECRET_CLI_UNSET_TOKEN): the call fails until it is`);
    expect(r.out).toContain(`✔ ${ok}: cli-ok is valid (1 warning)`);
    const untitled = file("untitled.mmd", "stateDiagram-v2\n    [*] --> A\n    A --> [*]\n");
    expect(validate(untitled).code).toBe(1);
    expect(validate(untitled, "--id", "named-here")).toMatchObject({ code: 0 });
    expect(validate(path.join(ROOT, "examples/workflows/support-triage.yaml"))).toMatchObject({ code: 0 });
  }, 60_000);
});
