// Mermaid's own examples (test/fixtures/mermaid: the state diagrams of its docs and parser specs
// that mermaid 12.3 accepts and that have an arrow) and our seed diagrams, read by the real
// `mermaid` package and by parseMermaid: every diagram that imports must read the same, and so
// must every export (the built-ins' too). The import rate is printed and must stay ≥ 95%.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { exportWorkflow, workflowFlow } from "../lib/api/workflows";
import { flowToMermaid, parseMermaid } from "../lib/flows/mermaid";
import { checkFlowSource } from "../lib/flows/validate";
import { BUILT_IN } from "../lib/machines/registry";
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
  it.each(BUILT_IN.map((w) => w.id))("%s: Mermaid reads the same states and transitions", async (id) => {
    const flow = workflowFlow(id);
    const text = exportWorkflow(id, "mermaid").body;
    expect(flowReading(flow)).toEqual(await readWithMermaid(text));
    const back = parseMermaid(text, { id });
    expect(back.issues).toEqual([]);
    expect(flowReading(back.config)).toEqual(flowReading(flow));
  });
});
