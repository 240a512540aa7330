// A workflow's declared inputs, a run's one name and a user workflow's result:
// `inputs:` as a JSON Schema or the short form, enforced by POST /api/runs (422 naming what is
// missing, step-less workflows too); the New run form's fields; `name` given, else `run_name:`,
// else the workflow's rule (never just any text field); a later cycle's request is a subtitle;
// the result card from `result:`, else the last step's output.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkFlowSource } from "../lib/flows/validate";
import { inputFields } from "../lib/flows/inputs";
import { findWorkflow } from "../lib/machines/registry";
import { runName } from "../lib/machines/run-name";
import type { Runtime } from "../lib/runtime";
import { tempDbUrl } from "./helpers";
import { flowApi, post, type Handler } from "./support/flow-api";

const url = tempDbUrl("run-inputs");
process.env.DATABASE_URL = url;
process.env.SWITCHYARD_SEED_GUIDE = "0";

let workflows: { GET: Handler; POST: Handler };
let runs: { POST: Handler; GET: Handler };
let rt: Runtime;

beforeAll(async () => {
  const api = await flowApi(url);
  ({ workflows, rt } = api);
  runs = (await import("../app/api/runs/route")) as never;
});
afterAll(async () => {
  await rt?.close();
});

async function create(yaml: string) {
  const res = await workflows.POST(post("/api/workflows", { yaml }));
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}
async function start(workflow: string, input: unknown, name?: string) {
  const res = await runs.POST(post("/api/runs", { workflow, input, ...(name !== undefined ? { name } : {}) }));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { id: string; name: string | null; message?: string; error?: string } };
}
const issues = (yaml: string) => {
  const r = checkFlowSource("yaml", yaml);
  return r.ok ? [] : r.issues.map((i) => `${i.line}: ${i.message}`);
};

const TICKETS = `id: tickets
title: Tickets
inputs: { ticket_id: string, subject: string, urgent?: boolean, tags?: array }
run_name: "{{input.ticket_id}}: {{input.subject}}"
result: "Filed {{input.ticket_id}} as {{steps.SORT.output}}"
stages: [SORT, DONE]
initial_stage: SORT
transitions: { SORT: [DONE], DONE: [] }
steps:
  SORT:
    code: { source: "input.urgent ? 'urgent' : 'normal'" }
    next: DONE
`;

describe("declared inputs", () => {
  it("short form: a required input missing is a 422 naming it; wrong types too; optional ones may be left out", async () => {
    await create(TICKETS);
    const missing = await start("tickets", { ticket_id: "T-1" });
    expect(missing.status).toBe(422);
    expect(missing.body.message ?? missing.body.error).toMatch(/subject: required \(string\)/);
    const wrong = await start("tickets", { ticket_id: "T-1", subject: "x", urgent: "yes" });
    expect(wrong.status).toBe(422);
    expect(JSON.stringify(wrong.body)).toContain("urgent");
    const ok = await start("tickets", { ticket_id: "T-1", subject: "Printer on fire" });
    expect(ok.status).toBe(201);
  });

  it("a JSON Schema (type or properties at its top), and a step-less workflow enforces its inputs too", async () => {
    await create(`id: stepless
inputs:
  type: object
  properties: { topic: { type: string, minLength: 3, description: "what to write about" }, channel: { type: string, enum: [blog, mail] } }
  required: [topic]
stages: [OPEN, CLOSED]
initial_stage: OPEN
transitions: { OPEN: [CLOSED], CLOSED: [] }
`);
    const missing = await start("stepless", {});
    expect(missing.status).toBe(422);
    expect(missing.body.message ?? missing.body.error).toMatch(/topic: required/);
    expect((await start("stepless", { topic: "ok topic", channel: "blog" })).status).toBe(201);
    expect(inputFields(findWorkflow("stepless")!.flow!)).toEqual([
      { name: "topic", type: "string", required: true, description: "what to write about" },
      { name: "channel", type: "string", required: false, options: ["blog", "mail"] },
    ]);
  });

  it("without inputs: no 422 (clients keep working), and the form offers the input names templates and guards read", async () => {
    await create(`id: reads-inputs
stages: [DRAFT, DONE]
initial_stage: DRAFT
transitions: { DRAFT: [DONE], DONE: [] }
steps:
  DRAFT:
    llm: { prompt: "Write about {{input.topic}} for {{input.audience}}" }
    when: [{ if: "input.urgent == true", to: DONE }]
    next: DONE
`);
    expect((await start("reads-inputs", {})).status).toBe(201);
    const def = findWorkflow("reads-inputs")!;
    expect(def.inputFields).toEqual([
      { name: "topic", type: "string", required: false },
      { name: "audience", type: "string", required: false },
      { name: "urgent", type: "string", required: false },
    ]);
    // not the "task" field of a stage machine without steps
    expect(def.example).toEqual({ topic: "", audience: "", urgent: "" });
  });

  it("saving checks inputs, run_name and result, each on its line", () => {
    const bad = TICKETS.replace("urgent?: boolean", "urgent?: bool").replace("{{input.ticket_id}}: {{input.subject}}", "{{steps.SORT.output}}").replace("{{steps.SORT.output}}\"\nstages", "{{steps.NOPE.output}}\"\nstages");
    expect(issues(bad)).toEqual([
      '3: inputs.urgent?: the type of urgent must be one of string, number, boolean, object, array (got "bool")',
      "4: run_name: {{steps.SORT.output}}: a run's name is made when it starts, from its input: use {{input.<name>}}",
      "5: result: {{steps.NOPE.output}}: NOPE is not a stage with a step",
    ]);
    expect(issues(TICKETS.replace("inputs: { ticket_id", "inputs: { type: string, ticket_id"))).toEqual(['3: inputs.type: a run\'s input is an object: type must be object (got "string")']);
  });
});

describe("one name per run", () => {
  it("the name given, else run_name, the same in the run document and the list", async () => {
    const given = await start("tickets", { ticket_id: "T-2", subject: "VPN down" }, "Ana's VPN");
    expect(given.body.name).toBe("Ana's VPN");
    const templated = await start("tickets", { ticket_id: "T-3", subject: "Mouse squeaks" });
    expect(templated.body.name).toBe("T-3: Mouse squeaks");
    const list = (await (await runs.GET(new Request("http://test/api/runs?workflow=tickets"))).json()) as { runs: { id: string; name: string | null }[] };
    expect(list.runs.find((r) => r.id === given.body.id)?.name).toBe("Ana's VPN");
    expect(list.runs.find((r) => r.id === templated.body.id)?.name).toBe("T-3: Mouse squeaks");
    // kept with the run: the stored row has it
    expect((await rt.store.getRun(templated.body.id))!.name).toBe("T-3: Mouse squeaks");
  });

  it("a workflow's own rule only reads what says what a run is about: {who: ana} is not a name", async () => {
    expect(runName(undefined, { input: { who: "ana" } })).toBeNull();
    expect(runName(undefined, { input: { subject: "Refund", who: "ana" } })).toBe("Refund");
    const r = await start("reads-inputs", { who: "ana" });
    expect(r.body.name).toBeNull();
  });

  it("a long-lived run keeps the request it started with; a later cycle's request is its subtitle", async () => {
    const first = await start("loop", { request: "Write a TypeScript function that retries a fetch" });
    expect(first.body.name).toBe("Write a TypeScript function that retries a fetch");
    const later = await import("../lib/api/runs");
    const view = later.runResource({ ...(await rt.engine.getRun(first.body.id)), context: { request: "Now explain keyset pagination", cycle: 2 } });
    expect(view.name).toBe("Write a TypeScript function that retries a fetch");
    expect(view.subtitle).toBe("Now explain keyset pagination");
    const same = later.runResource(await rt.engine.getRun(first.body.id));
    expect(same.subtitle).toBeNull();
  });

  it("an empty name is refused", async () => {
    expect((await start("tickets", { ticket_id: "T-4", subject: "x" }, "  ")).status).toBe(422);
  });
});

describe("result of a user workflow", () => {
  it("the result template, else the last step's output", async () => {
    const r = await start("tickets", { ticket_id: "T-9", subject: "Urgent!", urgent: true });
    const done = await rt.engine.waitFor(r.body.id, (x) => x.status === "completed", 30_000);
    expect(findWorkflow("tickets")!.result!(done.context)).toEqual({ title: "Result", text: "Filed T-9 as urgent" });
    await create(TICKETS.replace(/result: .*\n/, "").replace("id: tickets", "id: tickets-plain"));
    const p = await start("tickets-plain", { ticket_id: "T-10", subject: "calm" });
    const plain = await rt.engine.waitFor(p.body.id, (x) => x.status === "completed", 30_000);
    expect(findWorkflow("tickets-plain")!.result!(plain.context)).toMatchObject({ title: "Result: SORT's output", text: "normal" });
    // the run document's output keeps its meaning
    expect(plain.output).toMatchObject({ steps: { SORT: { output: "normal" } } });
  }, 60_000);
});
