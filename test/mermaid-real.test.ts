// Mermaid's own examples (test/fixtures/mermaid: the state diagrams of its docs and parser specs
// that mermaid 12.3 accepts and that have an arrow) and our seed diagrams, read by the real
// `mermaid` package and by parseMermaid: every diagram that imports must read the same, and so
// must every export (the built-ins' too). The import rate is printed and must stay ≥ 95%.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createActor } from "xstate";
import { describe, expect, it } from "vitest";
import { exportWorkflow, workflowFlow } from "../lib/api/workflows";
import { flowMachine, flowWorkflow } from "../lib/flows/machine";
import type { FlowConfig } from "../lib/flows/types";
import { flowToMermaid, parseMermaid } from "../lib/flows/mermaid";
import { checkFlowSource } from "../lib/flows/validate";
import { builtInWorkflows, registerUserWorkflow } from "../lib/machines/registry";
import { flowReading, readWithMermaid } from "./support/mermaid-real";

const dir = (d: string) => path.join(import.meta.dirname, "fixtures", d);
const FIXTURES = [
  ...readdirSync(dir("mermaid")).map((f) => ({ name: `mermaid/${f}`, text: readFileSync(path.join(dir("mermaid"), f), "utf8") })),
  ...readdirSync(dir("seed-diagrams")).map((f) => ({ name: `seed/${f}`, text: readFileSync(path.join(dir("seed-diagrams"), f), "utf8") })),
];

describe("Mermaid's own examples", () => {
  it("every fixture is one Mermaid accepts, with an arrow", async () => {
    for (const f of FIXTURES) {
      const r = await readWithMermaid(f.text);
      expect(Object.keys(r.edges).length, f.name).toBeGreaterThan(0);
    }
  });

  it("import at ≥ 95%, each exactly as Mermaid reads it, and export as Mermaid reads back", async () => {
    const refused: string[] = [];
    for (const f of FIXTURES.filter((x) => x.name.startsWith("mermaid/"))) {
      const checked = checkFlowSource("mermaid", f.text);
      if (!checked.ok) {
        refused.push(`${f.name}: ${checked.issues.map((i) => i.message).join("; ")}`);
        continue;
      }
      expect.soft(flowReading(checked.config), f.name).toEqual(await readWithMermaid(f.text));
      const text = flowToMermaid(checked.config);
      expect.soft(flowReading(checked.config), `${f.name} exported:\n${text}`).toEqual(await readWithMermaid(text));
      const again = parseMermaid(text);
      expect(again.issues).toEqual([]);
      expect({ ...again.config, stages: [...again.config.stages].sort() }).toEqual({ ...checked.config, stages: [...checked.config.stages].sort() });
    }
    const total = FIXTURES.filter((x) => x.name.startsWith("mermaid/")).length;
    const rate = (total - refused.length) / total;
    console.log(`Mermaid examples imported: ${total - refused.length}/${total} (${(rate * 100).toFixed(1)}%)${refused.length ? `\nrefused:\n  ${refused.join("\n  ")}` : ""}`);
    expect(rate).toBeGreaterThanOrEqual(0.95);
  });

  it.each(FIXTURES.filter((x) => x.name.startsWith("seed/")))("$name reads as Mermaid reads it", async ({ text, name }) => {
    const parsed = parseMermaid(text);
    expect(parsed.issues).toEqual([]);
    expect(flowReading(parsed.config), name).toEqual(await readWithMermaid(text));
    expect(flowReading(parsed.config)).toEqual(await readWithMermaid(flowToMermaid(parsed.config)));
  });
});

describe("exports of the built-in workflows", () => {
  it.each(builtInWorkflows().map((w) => w.id))("%s: Mermaid reads the same states and transitions", async (id) => {
    const flow = workflowFlow(id);
    const text = exportWorkflow(id, "mermaid").body;
    expect(flowReading(flow)).toEqual(await readWithMermaid(text));
    const back = parseMermaid(text, { id });
    expect(back.issues).toEqual([]);
    expect(flowReading(back.config)).toEqual(flowReading(flow));
  });
});

/** export → the real Mermaid reading and our own reading both give back the config */
async function roundTrip(config: FlowConfig) {
  const text = flowToMermaid(config);
  expect(flowReading(config), text).toEqual(await readWithMermaid(text));
  const back = parseMermaid(text, { id: config.id });
  expect(back.issues, text).toEqual([]);
  expect(back.config, text).toEqual(config);
  return text;
}

const KEYWORDS = ["end", "state", "note", "direction", "class", "classDef", "style", "scale", "accTitle", "accDescr", "stateDiagram", "stateDiagram-v2", "click", "href", "default", "as", "hide", "State", "END", "root", "root_start", "root_end", "constructor", "toString", "valueOf", "hasOwnProperty"];

describe("names and text that Mermaid reads otherwise", () => {
  it.each(KEYWORDS)("a state named %s round-trips (as a stage, a composite and the initial stage)", async (kw) => {
    await roundTrip({ id: "kw", stages: [kw, "A", "Z"], initial_stage: kw, transitions: { [kw]: ["A"], A: [kw, "Z"], Z: [] }, ends: ["Z"], labels: { [`${kw} -> A`]: kw }, notes: { [kw]: `${kw} note` } });
    await roundTrip({ id: "kw", stages: ["A", kw, "B", "Z"], initial_stage: "A", transitions: { A: [kw], [kw]: ["Z"], B: [], Z: [] }, parents: { B: kw }, initials: { [kw]: ["B"] }, ends: ["B"] });
  });

  const TEXTS = ["a;b", "50%% done", "%%{init: {}}%%", "key: value", "a::b", "#59; literal", "#hash", "one\ntwo", "cr\rlf\r\n", "line\u2028sep", "para\u2029sep", "nel\u0085x", "nb\u00a0sp", "tab\there", "  padded  ", "<b>bold</b> & <i>", "set direction LR", "style: #f00;", "classDef x fill:#f00;", "A --> B", "[*]", "{ braces }", '"quoted"', "hide empty description", "note right of X", "end note", "ü 开始 🚀"];
  it.each(TEXTS)("%j survives as a label, a description, a name and a title", async (t) => {
    const name = t === "[*]" ? "x" : t.trim().replace(/[\p{Cc}]/gu, "_") || "x";
    await roundTrip({ id: "texts", title: `T ${t}`, description: t, stages: ["A", name], initial_stage: "A", transitions: { A: [name], [name]: [] }, ends: [name], labels: { [`A -> ${name}`]: t, [`${name} -> [*]`]: t }, notes: { A: t, [name]: `x${t}y` } });
  });

  it("a JSON workflow with a stage named end exports (no HTTP 500)", async () => {
    const checked = checkFlowSource("json", JSON.stringify({ id: "ending", stages: ["start", "end"], initial_stage: "start", transitions: { start: ["end"], end: [] } }));
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    registerUserWorkflow(flowWorkflow(checked.config, { version: 1 }), 1);
    const text = exportWorkflow("ending", "mermaid").body;
    expect(flowReading(checked.config)).toEqual(await readWithMermaid(text));
  });
});

describe("Mermaid as people write it", () => {
  const CASES: Record<string, string> = {
    ids: "stateDiagram-v2\n  [*] --> 1st\n  1st --> 55\n  55 --> Überprüfung\n  Überprüfung --> 开始\n  开始 --> a.b\n  a.b --> $a\n  $a --> Still%Active\n  Still%Active --> [*]\n",
    "state as with a description": 'stateDiagram-v2\n  state "Long name" as X: the description\n  [*] --> X\n  X --> [*]\n',
    "a quoted name on two lines": 'stateDiagram-v2\n  state "first line\n  second line" as X\n  [*] --> X\n',
    "{ on the next line": "stateDiagram-v2\n  [*] --> A\n  state A\n  {\n    [*] --> a1\n    a1 --> [*]\n  }\n  A --> B\n",
    "[[choice]], [[fork]], [[join]]": "stateDiagram-v2\n  state C [[choice]]\n  state F [[fork]]\n  state J [[join]]\n  [*] --> C\n  C --> F : go\n  C --> [*]\n  F --> L\n  F --> R\n  L --> J\n  R --> J\n  J --> [*]\n",
    "<<fork>> and <<join>>": "stateDiagram-v2\n  state F <<fork>>\n  state J <<join>>\n  [*] --> F\n  F --> L\n  F --> R\n  L --> L2\n  L2 --> J\n  R --> J\n  J --> Done\n",
    "HTML-escaped <<fork>> (Mermaid reads two bare words: a plain state)": "stateDiagram-v2\n  state F &lt;&lt;fork&gt;&gt;\n  [*] --> F\n  F --> A\n",
    "floating note, multi-line accDescr and %%{ }%%": '%%{init: {\n  "theme": "dark"\n}}%%\nstateDiagram-v2\n  accDescr {\n    two\n    lines\n  }\n  note "floating" as N1\n  [*] --> A\n  A --> B %% comment\n',
    "; and two statements on a line (as Mermaid reads them)": "stateDiagram-v2\n  [*] --> A; A --> B\n  B --> C C --> D\n",
    "a composite without [*] enters its first child": "stateDiagram\n  direction LR\n  [*] --> A\n  A --> B\n  state B {\n    direction LR\n    a --> b\n  }\n  B --> D\n",
  };
  it.each(Object.entries(CASES))("%s", async (_name, text) => {
    const checked = checkFlowSource("mermaid", text);
    expect(checked.ok ? [] : checked.issues).toEqual([]);
    if (!checked.ok) return;
    expect(flowReading(checked.config)).toEqual(await readWithMermaid(text));
    await roundTrip(checked.config);
    // and each one runs: its machine builds and starts
    expect(() => createActor(flowMachine(checked.config), { input: {} }).start()).not.toThrow();
  });

  it("reads ids, descriptions, forks and joins as Mermaid does", () => {
    const ok = (t: string) => {
      const r = checkFlowSource("mermaid", t);
      if (!r.ok) throw new Error(JSON.stringify(r.issues));
      return r.config;
    };
    expect(ok(CASES.ids!).stages).toEqual(["1st", "55", "Überprüfung", "开始", "a.b", "$a", "Still%Active"]);
    expect(ok(CASES["state as with a description"]!).notes).toEqual({ X: "Long name\nthe description" });
    expect(ok(CASES["a quoted name on two lines"]!).notes).toEqual({ X: "first line\n  second line" });
    expect(ok(CASES["{ on the next line"]!).parents).toEqual({ a1: "A" });
    expect(ok(CASES["[[choice]], [[fork]], [[join]]"]!)).toMatchObject({ choices: ["C"], forks: ["F"], joins: ["J"] });
    expect(ok(CASES["floating note, multi-line accDescr and %%{ }%%"]!)).toMatchObject({ description: "two\n    lines", stages: ["A", "B"] });
    expect(ok(CASES["a composite without [*] enters its first child"]!)).toMatchObject({ parents: { a: "B", b: "B" } });
  });
});

describe("validation looks names up as own properties", () => {
  it.each(["constructor", "toString", "valueOf", "hasOwnProperty"])("%s as the initial stage (Mermaid and JSON)", (name) => {
    const m = checkFlowSource("mermaid", `stateDiagram-v2\n  [*] --> ${name}\n  ${name} --> B\n`);
    expect(m.ok ? [] : m.issues).toEqual([]);
    const j = checkFlowSource("json", JSON.stringify({ id: "own", stages: [name, "B"], initial_stage: name, transitions: { [name]: ["B"], B: [] } }));
    expect(j.ok ? [] : j.issues).toEqual([]);
    const actor = createActor(flowMachine((j as { config: FlowConfig }).config), { input: {} }).start();
    actor.send({ type: "TRANSITION", to: "B" });
    expect(actor.getSnapshot().status).toBe("done");
    expect((actor.getSnapshot().context as { visits: Record<string, number> }).visits).toEqual({ [name]: 1, B: 1 });
  });
});
