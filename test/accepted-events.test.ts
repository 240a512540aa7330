// `accepted` lists only the events a run's current state takes: in every state of every
// built-in workflow, of the fixture workflow and of user-defined workflows (the examples, the post
// pipeline), each listed event is taken by the machine (the engine does not answer 409) with any
// payload of its shape, and each event it would refuse is not listed. A stage with a step moves
// by itself: it takes no MESSAGE, TRANSITION or TOOL from clients.
import fs from "node:fs";
import path from "node:path";
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, EventObject, StateValue } from "xstate";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { builtInWorkflows } from "../lib/machines/registry";
import type { WorkflowDefinition } from "../lib/machines/types";
import { checkFlowSource, type FlowFormat } from "../lib/flows/validate";
import { flowWorkflow } from "../lib/flows/machine";
import { initialStep, step } from "../lib/engine/step";
import { sampleFor } from "../lib/steps/json-schema";
import { END } from "../lib/flows/types";
import { hello } from "./fixtures/workflows/hello/machine";
import { POST_PIPELINE } from "./support/post-pipeline";
import { guideExamples, STRUCTURES_GUIDE } from "./support/guide-examples";

const ROOT = path.resolve(import.meta.dirname, "..");
const EXAMPLES = path.join(ROOT, "examples/workflows");

/** every user-defined workflow the repo ships as an example, and the post pipeline (test/support/post-pipeline.ts) */
function flowDefinitions(): WorkflowDefinition[] {
  const out: WorkflowDefinition[] = [];
  const add = (format: FlowFormat, source: string, name: string) => {
    const r = checkFlowSource(format, source);
    if (!r.ok) throw new Error(`${name}: ${r.issues.map((i) => `line ${i.line}: ${i.message}`).join("; ")}`);
    out.push(flowWorkflow(r.config, { version: 1 }));
  };
  add("yaml", POST_PIPELINE, "post pipeline");
  // the guide's composites, regions, forks and joins (each once: its YAML)
  for (const e of guideExamples(STRUCTURES_GUIDE)) if (e.format === "yaml") add("yaml", e.source, `${STRUCTURES_GUIDE} line ${e.line}`);
  const formats: Record<string, FlowFormat> = { ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".mmd": "mermaid" };
  for (const f of fs.existsSync(EXAMPLES) ? fs.readdirSync(EXAMPLES).sort() : []) {
    const format = formats[path.extname(f)];
    if (format) add(format, fs.readFileSync(path.join(EXAMPLES, f), "utf8"), f);
  }
  return out;
}

/** the state value that has `leaf` active (other regions of parallel states at their initial states) */
function valueOf(machine: AnyStateMachine, leaf: string[]): StateValue {
  const build = (node: AnyStateNode, path: string[]): StateValue | null => {
    const kids = node.states as Record<string, AnyStateNode>;
    const keys = Object.keys(kids);
    if (!keys.length) return null;
    if (node.type === "parallel") return Object.fromEntries(keys.map((k) => [k, build(kids[k]!, k === path[0] ? path.slice(1) : []) ?? {}])) as StateValue;
    const key = path[0] ?? (node.config.initial as string);
    const inner = build(kids[key]!, path.slice(1));
    return inner === null ? key : { [key]: inner };
  };
  return build(machine.root, leaf)!;
}

/** every state key active in a value */
function keysOf(value: StateValue): string[] {
  if (typeof value === "string") return [value];
  return Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v as StateValue)]);
}

/** payloads of each shape a client may send: one sample per event, and TRANSITION to every stage */
function payloads(def: WorkflowDefinition, type: string): EventObject[] {
  const schema = z.toJSONSchema(def.events[type]!, { unrepresentable: "any" }) as Record<string, unknown>;
  const sample = { ...(sampleFor(schema, "ok") as Record<string, unknown>), type };
  if (type !== "TRANSITION" || !def.flow) return [sample];
  return [...def.flow.stages, END, "no-such-stage"].map((to) => ({ ...sample, to }));
}

function leaves(machine: AnyStateMachine): string[][] {
  const out: string[][] = [];
  const walk = (node: AnyStateNode, path: string[]) => {
    const kids = Object.entries(node.states as Record<string, AnyStateNode>);
    if (!kids.length) return out.push(path);
    for (const [k, n] of kids) walk(n, [...path, k]);
  };
  walk(machine.root, []);
  return out;
}

interface Mismatch {
  workflow: string;
  state: string;
  event: string;
  listed: boolean;
  taken: boolean;
  payload?: unknown;
}

/** Walk every leaf state of a workflow: listed (snapshot.can, as Engine.acceptedEvents) must equal taken, for every payload. */
function walk(def: WorkflowDefinition, input: unknown): { states: number; checked: number; skipped: number; mismatches: Mismatch[] } {
  const machine = def.machine;
  const base = initialStep(machine, z.parse(def.input, input)).snapshot as AnyMachineSnapshot;
  const mismatches: Mismatch[] = [];
  let states = 0;
  let checked = 0;
  let skipped = 0;
  for (const leaf of leaves(machine)) {
    const value = valueOf(machine, leaf);
    let context = base.context as Record<string, unknown>;
    if (def.flow) {
      // a stage machine keeps its active stages in context (written by its entry and exit actions)
      const names = new Map(def.flow.stages.map((s) => [s.replace(/[.#\\%]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`), s]));
      context = { ...context, active: keysOf(value).flatMap((k) => (names.has(k) ? [names.get(k)!] : [])) };
    }
    const snapshot = machine.resolveState({ value, context }) as AnyMachineSnapshot;
    if (snapshot.status !== "active") continue;
    // a state a run passes through (eventless transitions leave it in the same step): never at rest there
    try {
      if (step(machine, snapshot, { type: "probe.nothing" }).transitions.length > 0) continue;
    } catch {
      continue;
    }
    states++;
    for (const type of Object.keys(def.events)) {
      const listed = snapshot.can({ type } as EventObject);
      for (const payload of payloads(def, type)) {
        let taken: boolean;
        try {
          taken = step(machine, snapshot, { ...payload, at: 1_000_000 } as EventObject).transitions.length > 0;
        } catch {
          // the state entered reads context this synthetic snapshot lacks (a built-in's invoke input): not judged here
          skipped++;
          continue;
        }
        checked++;
        if (listed !== taken) mismatches.push({ workflow: def.id, state: leaf.join("."), event: type, listed, taken, payload });
      }
    }
  }
  return { states, checked, skipped, mismatches };
}

const INPUTS: Record<string, unknown> = { hello: { name: "ana" } };

describe("accepted lists only what the current state takes", () => {
  it.each([...builtInWorkflows().map((d) => [d.id, d] as const), ["hello (fixture)", hello as WorkflowDefinition] as const])("%s: every state", (_name, def) => {
    const input = INPUTS[def.id] ?? def.example ?? {};
    const { states, checked, skipped, mismatches } = walk(def, input);
    expect(states).toBeGreaterThan(1);
    expect(checked).toBeGreaterThanOrEqual(skipped);
    expect(mismatches).toEqual([]);
  });

  it("user-defined workflows (the examples and the post pipeline): every state, TRANSITION to every stage", () => {
    const defs = flowDefinitions();
    expect(defs.length).toBeGreaterThanOrEqual(1);
    let total = 0;
    const SAMPLE = { string: "ok", number: 1, boolean: true, object: {}, array: [] } as const;
    for (const def of defs) {
      // declared inputs are enforced: a run of an example starts with a value for each
      const input = Object.fromEntries((def.inputFields ?? []).map((f) => [f.name, SAMPLE[f.type]]));
      const { states, mismatches } = walk(def, input);
      total += states;
      expect(mismatches, def.id).toEqual([]);
    }
    expect(total).toBeGreaterThan(5);
  });

  it("a stage with a step lists none of MESSAGE, TRANSITION, TOOL; a stage without one lists them", () => {
    const def = flowDefinitions()[0]!; // the post pipeline: REVIEW is a review step, DONE has none
    const at = (stage: string) => {
      const base = initialStep(def.machine, z.parse(def.input, {})).snapshot as AnyMachineSnapshot;
      const snap = def.machine.resolveState({ value: stage, context: { ...(base.context as object), active: [stage] } }) as AnyMachineSnapshot;
      return Object.keys(def.events).filter((t) => snap.can({ type: t } as EventObject));
    };
    expect(at("REVIEW")).toEqual(expect.arrayContaining(["APPROVE", "REJECT", "EDIT"]));
    for (const stage of ["DRAFT", "REVIEW", "PUBLISH", "NOTIFY"]) for (const t of ["MESSAGE", "TRANSITION", "TOOL"]) expect(at(stage), `${stage} ${t}`).not.toContain(t);
  });
});
