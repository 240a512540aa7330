// Mermaid imports and exports that say which workflow they are: an untitled import
// without an id is refused (422 asking for one) instead of replacing whatever was imported
// untitled before; an export carries the id and title in its front matter, with the workflow's
// inputs, run_name, result and steps under `switchyard:`; importing an unchanged export again is
// `created: false`; a Mermaid keyword used as a state's name is named as such, on its line, with
// one "line N:" prefix.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../lib/runtime";
import { tempDbUrl } from "./helpers";
import { flowApi, params, post, type Handler } from "./support/flow-api";

const url = tempDbUrl("mermaid-hygiene");
process.env.DATABASE_URL = url;
process.env.SWITCHYARD_SEED_GUIDE = "0";

let workflows: { GET: Handler; POST: Handler };
let exporter: { GET: Handler };
let rt: Runtime;

beforeAll(async () => {
  ({ workflows, exporter, rt } = await flowApi(url));
});
afterAll(async () => {
  await rt?.close();
});

async function create(body: unknown) {
  const res = await workflows.POST(post("/api/workflows", body));
  return { status: res.status, body: (await res.json()) as { id: string; version: number; created: boolean; error?: string; message?: string; details?: { issues: { message: string; line?: number }[] } } };
}
async function exported(id: string) {
  const res = await exporter.GET(new Request(`http://test/api/workflows/${id}/export?format=mermaid`), params({ id }));
  expect(res.status).toBe(200);
  return res.text();
}

const UNTITLED = "stateDiagram-v2\n    [*] --> OPEN\n    OPEN --> CLOSED\n    CLOSED --> [*]\n";

const YAML = `id: triage-lite
title: Triage, lite
inputs: { ticket_id: string, subject: string, urgent?: boolean }
run_name: "{{input.ticket_id}}: {{input.subject}}"
result: "{{steps.SORT.output}}"
stages: [SORT, DONE]
initial_stage: SORT
transitions: { SORT: [DONE], DONE: [] }
steps:
  SORT:
    code: { source: "input.urgent ? 'urgent' : 'normal'" }
    next: DONE
`;

describe("Mermaid imports say which workflow they are", () => {
  it("an untitled import without an id is a 422 asking for one; with an id it saves", async () => {
    const bad = await create({ mermaid: UNTITLED });
    expect(bad.status).toBe(422);
    expect(bad.body.details!.issues).toEqual([{ message: 'the diagram has no id and no title: say which workflow it is (send "id" with it, or write "switchyard: { id: my-workflow }" or a "title" in its front matter)', line: 1 }]);
    const ok = await create({ mermaid: UNTITLED, id: "first-untitled" });
    expect(ok).toMatchObject({ status: 201, body: { id: "first-untitled", version: 1 } });
    // a second untitled diagram does not become the next version of anything
    expect((await create({ mermaid: UNTITLED.replace("CLOSED", "DONE").replace("CLOSED", "DONE") })).status).toBe(422);
    // the id may be in the front matter
    const fm = await create({ mermaid: `---\nswitchyard:\n  id: from-front-matter\n---\n${UNTITLED}` });
    expect(fm).toMatchObject({ status: 201, body: { id: "from-front-matter" } });
  });

  it("a YAML workflow's export carries its id, title, inputs, run_name, result and steps; importing it again changes nothing", async () => {
    const first = await create({ yaml: YAML });
    expect(first).toMatchObject({ status: 201, body: { id: "triage-lite", version: 1, created: true } });
    const text = await exported("triage-lite");
    expect(text).toMatch(/^---\ntitle: Triage, lite\nswitchyard:\n {2}id: triage-lite\n {2}inputs:\n/);
    expect(text).toContain('  run_name: "{{input.ticket_id}}: {{input.subject}}"\n');
    expect(text).toContain('  result: "{{steps.SORT.output}}"\n');
    expect(text).toContain("  steps:\n    SORT:\n");
    const again = await create({ mermaid: text });
    expect(again).toMatchObject({ status: 200, body: { id: "triage-lite", version: 1, created: false } });
    // and the export of a Mermaid workflow, imported back
    const m = await exported("first-untitled");
    expect(m).toMatch(/^---\ntitle: first-untitled\nswitchyard:\n {2}id: first-untitled\n---\n/);
    expect(await create({ mermaid: m })).toMatchObject({ status: 200, body: { id: "first-untitled", version: 1, created: false } });
    // a real change is a new version
    expect(await create({ mermaid: m.replace("CLOSED --> [*]", "CLOSED --> OPEN") })).toMatchObject({ status: 201, body: { version: 2, created: true } });
  });

  it("a Mermaid keyword as a state's name: named as such, on the line that uses it, one line prefix", async () => {
    const src = "---\ntitle: Notes\n---\nstateDiagram-v2\n    [*] --> DRAFT\n    DRAFT --> NOTE\n    NOTE --> DONE\n    DONE --> [*]\n";
    const r = await create({ mermaid: src });
    expect(r.status).toBe(422);
    expect(r.body.details!.issues).toEqual([{ message: '"NOTE" is a Mermaid keyword (note): it cannot be the name of a state. Rename the state (e.g. NOTE_STAGE)', line: 6 }]);
    const text = r.body.message ?? r.body.error ?? "";
    expect(text.match(/line \d+:/g)).toEqual(["line 6:"]);
  });
});
