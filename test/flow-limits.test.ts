// Limits on a user-defined workflow's shape that keep one definition from tying up the server:
// composite stages nest at most MAX_NESTING levels (entering a stage costs XState work that grows
// with the cube of its depth: 200 levels took 17 s), and a definition has at most MAX_STAGES stages.
import { describe, expect, it } from "vitest";
import { createActor } from "xstate";
import { flowMachine } from "../lib/flows/machine";
import type { FlowConfig } from "../lib/flows/types";
import { MAX_NESTING, MAX_STAGES, checkFlowSource } from "../lib/flows/validate";

const nested = (n: number) => `stateDiagram-v2\n[*] --> C0\n${Array.from({ length: n }, (_, i) => `state C${i} {\n[*] --> C${i + 1}`).join("\n")}\nX\n${"}\n".repeat(n)}`;

describe("definition limits", () => {
  it("accepts composites nested MAX_NESTING deep, and its machine starts", () => {
    const r = checkFlowSource("mermaid", nested(MAX_NESTING), { id: "deep" });
    expect(r.ok).toBe(true);
    const actor = createActor(flowMachine((r as { config: FlowConfig }).config), { input: {} }).start();
    // the innermost stage has no way out: it finishes its composite, and so on outwards
    expect(actor.getSnapshot().status).not.toBe("error");
    expect(r.ok && r.config.parents?.[`C${MAX_NESTING}`]).toBe(`C${MAX_NESTING - 1}`);
    actor.stop();
  });

  it("refuses one level more, naming the stage and the limit", () => {
    const r = checkFlowSource("mermaid", nested(MAX_NESTING + 1), { id: "deeper" });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues[0]!.message).toBe(`stage C${MAX_NESTING + 1} is nested more than ${MAX_NESTING} composites deep (at most ${MAX_NESTING} levels)`);
  });

  it("refuses thousands of nested composites before parsing them, on the line where they go too deep", () => {
    const r = checkFlowSource("mermaid", nested(3_000), { id: "deepest" });
    expect(!r.ok && r.issues).toEqual([{ message: `composites are nested more than ${MAX_NESTING} levels deep (at most ${MAX_NESTING} levels)`, line: 3 + 2 * (MAX_NESTING + 1) }]);
  });

  it("refuses more than MAX_STAGES stages", () => {
    const r = checkFlowSource("mermaid", `stateDiagram-v2\n[*] --> S0\n${Array.from({ length: MAX_STAGES + 1 }, (_, i) => `S${i} --> S${i + 1}`).join("\n")}\n`, { id: "wide" });
    expect(!r.ok && r.issues[0]!.message).toMatch(/too many stages/);
  });
});
