// Steps in a Mermaid diagram's front matter: `switchyard: { steps: … }` carries what
// each stage does; the diagram still reads the same in the real Mermaid; problems in the steps
// come with their line in the file; export writes the steps back and the round trip is exact;
// an imported diagram with steps runs.
import { describe, expect, it } from "vitest";
import { flowToMermaid } from "../lib/flows/mermaid";
import type { FlowConfig } from "../lib/flows/types";
import { checkFlowSource } from "../lib/flows/validate";
import { saveUserWorkflow } from "../lib/flows/store";
import { flowReading, readWithMermaid } from "./support/mermaid-real";
import { POST_PIPELINE } from "./support/post-pipeline";
import { testRuntime } from "./helpers";

const DIAGRAM = `---
title: Scored posts
switchyard:
  steps:
    SCORE:
      code: { source: "({ score: input.score })" }
      when:
        - { if: "steps.SCORE.output.score >= 0.8", to: PUBLISH }
      next: DROP
    PUBLISH:
      wait: { after_s: 5 }
      next: DONE
---
stateDiagram-v2
    [*] --> SCORE
    SCORE --> PUBLISH
    SCORE --> DROP
    PUBLISH --> DONE
    DONE --> [*]
    DROP --> [*]
`;

const configOf = (format: "mermaid" | "yaml", text: string): FlowConfig => {
  const r = checkFlowSource(format, text);
  if (!r.ok) throw new Error(r.issues.map((i) => `${i.line}: ${i.message}`).join("\n"));
  return r.config;
};
const issues = (text: string) => {
  const r = checkFlowSource("mermaid", text);
  return r.ok ? [] : r.issues.map((i) => `${i.line}: ${i.message}`);
};

describe("steps in Mermaid front matter", () => {
  it("are read from the switchyard key, and Mermaid itself reads the diagram the same", async () => {
    const c = configOf("mermaid", DIAGRAM);
    expect(c.title).toBe("Scored posts");
    expect(Object.keys(c.steps!)).toEqual(["SCORE", "PUBLISH"]);
    expect(c.steps!.SCORE!.when).toEqual([{ if: "steps.SCORE.output.score >= 0.8", to: "PUBLISH" }]);
    expect(flowReading(c)).toEqual(await readWithMermaid(DIAGRAM));
  }, 30_000);

  it("report problems on their line in the file", () => {
    expect(issues(DIAGRAM.replace("next: DROP", "next: NOWHERE"))).toEqual(['9: steps.SCORE.next: unknown stage "NOWHERE"']);
    expect(issues(DIAGRAM.replace('score >= 0.8"', 'score >="'))).toEqual(['8: steps.SCORE.when.0.if: "steps.SCORE.output.score >=": Unexpected token: EOF']);
    expect(issues(DIAGRAM.replace("after_s: 5", "after_s: -5"))).toEqual([expect.stringMatching(/^11: switchyard\.steps\.PUBLISH\.wait\.after_s: /)]);
    expect(issues(DIAGRAM.replace("  steps:\n", "  stepz: 1\n  steps:\n"))).toEqual([expect.stringMatching(/^4: switchyard: Unrecognized key: "stepz"/)]);
    expect(issues(DIAGRAM.replace("      next: DONE\n", "      next: DONE\n      next: DROP\n"))).toEqual([expect.stringMatching(/^13: the front matter is not valid YAML: Map keys must be unique/)]);
    // a step on a stage the diagram does not draw
    expect(issues(DIAGRAM.replace("    PUBLISH:\n      wait", "    GHOST:\n      wait"))).toEqual(['10: steps.GHOST: unknown stage "GHOST"']);
  });

  it("are written back on export: diagram → config → diagram → config is exact, and a YAML definition exports with its steps", async () => {
    const c = configOf("mermaid", DIAGRAM);
    const text = flowToMermaid(c);
    // the front matter says which workflow it is: title, then Switchyard's id and steps
    expect(text).toMatch(/^---\ntitle: Scored posts\nswitchyard:\n {2}id: scored-posts\n {2}steps:\n {4}SCORE:\n/);
    expect(configOf("mermaid", text)).toEqual(c);
    expect(flowReading(configOf("mermaid", text))).toEqual(await readWithMermaid(text));

    const pipeline = configOf("yaml", POST_PIPELINE);
    const exported = flowToMermaid(pipeline);
    const back = configOf("mermaid", exported);
    expect(back.steps).toEqual(pipeline.steps);
    expect(back.transitions).toEqual(pipeline.transitions);
  }, 30_000);

  it("an imported diagram with steps runs them", async () => {
    const rt = await testRuntime();
    try {
      const saved = await saveUserWorkflow(rt.db, "mermaid", DIAGRAM, { id: "scored-mermaid" });
      expect(saved.config.steps).toBeDefined();
      const high = (await rt.engine.start("scored-mermaid", { score: 0.9 })).run.id;
      const low = (await rt.engine.start("scored-mermaid", { score: 0.2 })).run.id;
      expect((await rt.engine.waitFor(high, (r) => r.state.includes("PUBLISH"), 30_000)).state).toEqual(["PUBLISH"]);
      expect((await rt.engine.waitFor(low, (r) => r.status === "completed", 30_000)).state).toEqual(["DROP"]);
      rt.clock.advance(5_000);
      expect((await rt.engine.waitFor(high, (r) => r.status === "completed")).state).toEqual(["DONE"]);
    } finally {
      await rt.close();
    }
  }, 60_000);
});
