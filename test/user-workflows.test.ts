// User-defined workflows (generic StateMachine: docs/guide/15-conversation-and-your-own-workflows.md): defined by API from Mermaid, JSON or
// YAML, validated with line numbers, stored and versioned, run like a built-in workflow, and
// exported; every seed diagram imports and runs; built-ins round-trip export → import.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createActor } from "xstate";
import { flowMachine } from "../lib/flows/machine";
import type { FlowConfig } from "../lib/flows/types";
import { checkFlowSource } from "../lib/flows/validate";
import { builtInWorkflows } from "../lib/machines/registry";
import type { Runtime } from "../lib/runtime";
import { tempDbUrl } from "./helpers";
import { flowApi, params, post, type Handler } from "./support/flow-api";

const url = tempDbUrl("user-workflows");
process.env.DATABASE_URL = url;
process.env.SWITCHYARD_SEED_GUIDE = "0";

let workflows: { GET: Handler; POST: Handler };
let workflow: { GET: Handler };
let exporter: { GET: Handler };
let runs: { POST: Handler };
let events: { POST: Handler };
let rt: Runtime;

const fixtures = path.join(__dirname, "fixtures", "seed-diagrams");
const diagrams = fs.readdirSync(fixtures).filter((f) => f.endsWith(".mmd")).sort();

async function create(body: unknown) {
  const res = await workflows.POST(post("/api/workflows", body));
  return { status: res.status, body: await res.json() };
}
async function startRun(workflowId: string, input: unknown = {}) {
  const res = await runs.POST(post("/api/runs", { workflow: workflowId, input }));
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; state: string[]; status: string };
}
async function send(id: string, event: unknown) {
  const res = await events.POST(post(`/api/runs/${id}/events`, event), params({ id }));
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  ({ workflows, workflow, exporter, runs, events, rt } = await flowApi(url));
});
afterAll(async () => {
  await rt?.close();
});

describe("validation with line numbers", () => {
  it("JSON: unknown target, unreachable state, no initial state, bad shape", () => {
    const json = `{
  "id": "docs-flow",
  "stages": ["DRAFT", "REVIEW", "ORPHAN"],
  "initial_stage": "DRAFT",
  "transitions": {
    "DRAFT": ["REVIEW"],
    "REVIEW": ["PUBLISHED"]
  }
}`;
    const r = checkFlowSource("json", json);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues).toEqual([{ message: 'transition REVIEW -> PUBLISHED: unknown stage "PUBLISHED"', line: 7 }]);
    const unreachable = checkFlowSource("json", json.replace('["PUBLISHED"]', '["DRAFT"]'));
    expect(!unreachable.ok && unreachable.issues).toEqual([{ message: "stage ORPHAN is unreachable from DRAFT", line: 3 }]);
    const noInitial = checkFlowSource("yaml", "id: a-flow\nstages: [A, B]\ntransitions:\n  A: [B]\n");
    expect(!noInitial.ok && noInitial.issues[0]).toMatchObject({ message: expect.stringMatching(/^initial_stage: is missing/), line: 1 });
    const badShape = checkFlowSource("yaml", "id: a-flow\nstages: [A, B]\ninitial_stage: A\ntransitions:\n  A: B\n");
    expect(!badShape.ok && badShape.issues[0]).toMatchObject({ message: expect.stringMatching(/^transitions\.A: /), line: 5 });
    const syntax = checkFlowSource("json", '{ "id": "x-flow",\n  "stages": [\n}');
    expect(!syntax.ok && syntax.issues[0]!.line).toBeGreaterThanOrEqual(2);
  });

  it("Mermaid: a line Mermaid cannot read is reported on its line; a composite without a start enters its first child", () => {
    // "this is not mermaid" is four bare state names to Mermaid; "A -> B" is not Mermaid
    const r = checkFlowSource("mermaid", "stateDiagram-v2\n  [*] --> A\n  A --> B\n  A -> C\n", { id: "m-flow" });
    expect(!r.ok && r.issues.map((i) => i.line)).toEqual([4]);
    const composite = checkFlowSource("mermaid", "stateDiagram-v2\n  [*] --> A\n  A --> C\n  state C {\n    X --> Y\n  }\n", { id: "m-flow" });
    expect(composite.ok && composite.warnings).toEqual([]);
    const actor = createActor(flowMachine((composite as { config: FlowConfig }).config), { input: {} }).start();
    actor.send({ type: "TRANSITION", to: "C" });
    expect(actor.getSnapshot().value).toEqual({ C: "X" });
  });
});

describe("every diagram in the seeds imports, builds a machine and runs", () => {
  it.each(diagrams)("%s", async (file) => {
    const source = fs.readFileSync(path.join(fixtures, file), "utf8");
    const id = `seed-${file.replace(/\.mmd$/, "").toLowerCase()}`;
    const checked = checkFlowSource("mermaid", source, { id });
    expect(checked.ok ? [] : checked.issues).toEqual([]);
    const { status, body } = await create({ id, mermaid: source });
    expect(status).toBe(201);
    expect(body).toMatchObject({ id, version: 1, userDefined: true });
    const run = await startRun(id);
    expect(run.status).toBe("waiting"); // for its first move
    // move along the first valid transition a few times (imported diagrams have no cooldown): every move succeeds
    let current = (await rt.engine.getRun(run.id)).output as { next: string[]; stage: string[] };
    for (let i = 0; i < 3 && current.next.length; i++) {
      const to = current.next[0]!;
      const moved = await send(run.id, { type: "TRANSITION", to });
      expect(moved.status).toBe(200);
      const now = await rt.engine.getRun(run.id);
      expect(now.state.some((s) => s.split(".").includes(to)), `${now.state} after moving to ${to}`).toBe(true);
      current = now.output as typeof current;
    }
  });

  it("the agent diagram's BOTH_SPLIT becomes parallel regions", () => {
    const source = fs.readFileSync(path.join(fixtures, "000-agent.mmd"), "utf8");
    const checked = checkFlowSource("mermaid", source, { id: "agent-copy" });
    if (!checked.ok) throw new Error("invalid");
    const machine = flowMachine(checked.config);
    expect(machine.root.states.BOTH_SPLIT!.type).toBe("parallel");
  });
});

describe("the API", () => {
  const yaml = `id: publishing
title: Publishing
stages: [DRAFT, REVIEW, APPROVED, PUBLISHED]
initial_stage: DRAFT
transitions:
  DRAFT: [REVIEW]
  REVIEW: [DRAFT, APPROVED]
  APPROVED: [PUBLISHED]
  PUBLISHED: []
stage_tools:
  DRAFT: [write, edit]
  REVIEW: [read, comment]
  APPROVED: [read]
  PUBLISHED: [read]
`;

  it("POST /api/workflows {yaml} → 201; GET describes it; runs move through it; an unchanged definition is not a new version", async () => {
    const created = await create({ yaml });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: "publishing", version: 1, initial: ["DRAFT"], events: ["MESSAGE", "TRANSITION", "TOOL"] });
    const again = await create({ yaml });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ version: 1, created: false });
    const desc = await (await workflow.GET(new Request("http://test/api/workflows/publishing"), params({ id: "publishing" }))).json();
    expect(desc.states.map((s: { id: string }) => s.id)).toEqual(["DRAFT", "REVIEW", "APPROVED", "PUBLISHED"]);
    const run = await startRun("publishing");
    for (const to of ["REVIEW", "APPROVED", "PUBLISHED"]) expect((await send(run.id, { type: "TRANSITION", to })).status).toBe(200);
    const done = await rt.engine.getRun(run.id);
    expect(done).toMatchObject({ status: "completed", state: ["PUBLISHED"] });
  });

  it("422 with line-numbered issues for an invalid definition; 409 for a built-in id; 422 for a bad body", async () => {
    const bad = await create({ yaml: yaml.replace("APPROVED: [PUBLISHED]", "APPROVED: [GONE]") });
    expect(bad.status).toBe(422);
    expect(bad.body.details.issues).toEqual([{ message: 'transition APPROVED -> GONE: unknown stage "GONE"', line: 8 }]);
    expect(bad.body.error).toContain("line 8:");
    expect((await create({ json: { id: "swiss-army", stages: ["A"], initial_stage: "A", transitions: {} } })).status).toBe(409);
    expect((await create({ yaml, mermaid: "stateDiagram-v2" })).status).toBe(422);
    expect((await create({})).status).toBe(422);
    expect((await create({ json: 42 })).status).toBe(422);
  });

  it("a run keeps the version it started with, even after a new version and a restart", async () => {
    const v1 = { id: "versioned", stages: ["A", "B"], initial_stage: "A", transitions: { A: ["B"], B: [] } };
    expect((await create({ json: v1 })).status).toBe(201);
    const run = await startRun("versioned");
    const v2 = { ...v1, stages: ["A", "C", "B"], transitions: { A: ["C"], C: ["B"], B: [] } };
    const second = await create({ json: v2 });
    expect(second.body).toMatchObject({ version: 2 });
    expect(second.body.versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);
    // a new runtime on the same database: the run resumes on version 1's machine
    const { createRuntime } = await import("../lib/runtime");
    const other = await createRuntime({ url, seedGuide: false, serviceChoresMs: 0 });
    try {
      await other.engine.send(run.id, { type: "TRANSITION", to: "B" });
      expect((await other.engine.getRun(run.id)).state).toEqual(["B"]);
      const fresh = await other.engine.start("versioned", {});
      expect(fresh.run.input).toMatchObject({ definitionVersion: 2 });
    } finally {
      await other.close();
    }
  });

  it("export as Mermaid and JSON, and import the export back: the same workflow, for built-in and user-defined ones", async () => {
    for (const w of [...builtInWorkflows().map((b) => b.id), "publishing"]) {
      const asJson = await exporter.GET(new Request(`http://test/api/workflows/${w}/export?format=json`), params({ id: w }));
      expect(asJson.status).toBe(200);
      const flow = await asJson.json();
      const asMermaid = await (await exporter.GET(new Request(`http://test/api/workflows/${w}/export?format=mermaid`), params({ id: w }))).text();
      expect(asMermaid).toMatch(/stateDiagram-v2/);
      const fromJson = await create({ json: { ...flow, id: `${w}-copy` } });
      expect(fromJson.status, JSON.stringify(fromJson.body)).toBe(201);
      const fromMermaid = await create({ id: `${w}-mmd`, mermaid: asMermaid });
      expect(fromMermaid.status, JSON.stringify(fromMermaid.body)).toBe(201);
      const shape = (b: { states: { id: string }[]; transitions: { source: string; target: string }[] }) => ({
        states: b.states.map((s) => s.id).sort(),
        transitions: b.transitions.map((t) => `${t.source}>${t.target}`).sort(),
      });
      expect(shape(fromMermaid.body)).toEqual(shape(fromJson.body));
      const reexport = await (await exporter.GET(new Request(`http://test/api/workflows/${w}-copy/export?format=json`), params({ id: `${w}-copy` }))).json();
      expect({ ...reexport, id: w }).toEqual(flow);
    }
    expect((await exporter.GET(new Request("http://test/api/workflows/x/export?format=svg"), params({ id: "x" }))).status).toBe(422);
    expect((await exporter.GET(new Request("http://test/api/workflows/nope/export"), params({ id: "nope" }))).status).toBe(404);
  });
});
