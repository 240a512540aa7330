// A user-defined workflow, as the stage machine's generic StateMachine / StateConfig describes it, with
// the few additions a Mermaid stateDiagram-v2 needs (composite states, choices, end markers,
// transition labels). Written as JSON or YAML, or imported from Mermaid; validated by
// lib/flows/validate.ts and turned into an XState machine by lib/flows/machine.ts.

import type { StepSpec } from "../steps/schema";

/** A built-in transition validator (the seed's TransitionValidatorProtocol, as data). */
export type ValidatorSpec =
  /** at least `min` tool calls recorded in the run before entering `target` (the seed's RequireMinToolsValidator) */
  | { type: "min_tool_calls"; target: string; min: number }
  /** `target` may be entered only after `stage` has been visited */
  | { type: "require_visited"; target: string; stage: string }
  /** `target` may be entered at most `max` times */
  | { type: "max_visits"; target: string; max: number }
  /** stay at least `seconds` in `stage` before leaving it */
  | { type: "min_dwell"; stage: string; seconds: number };

export interface FlowConfig {
  /** the workflow id: lower-case letters, digits and dashes */
  id: string;
  title?: string;
  description?: string;
  /** every state by a unique name, in the workflow's natural order (moving to an earlier one is "backward") */
  stages: string[];
  /** the top-level initial stage */
  initial_stage: string;
  /** true when the diagram draws no top-level `[*] -->`: the run starts in its first top-level state */
  implicit_start?: boolean;
  /** stage → the stages that may follow it (a stage with none, and no children, is terminal) */
  transitions: Record<string, string[]>;
  /** stage → the tools allowed while in it */
  stage_tools?: Record<string, string[]>;
  /** stage → keywords that make the stage detector pick it for a message */
  keywords?: Record<string, string[]>;
  /** minimum seconds between two transitions (the seed's cooldown_seconds; default 0) */
  cooldown_seconds?: number;
  /** confidence a backward transition needs (the seed's backward_threshold; default 0 = none) */
  backward_threshold?: number;
  /** confidence a detected stage needs before a MESSAGE moves the run (default 0.3) */
  detection_threshold?: number;
  validators?: ValidatorSpec[];
  /** composite states (Mermaid `state X { … }`): child → parent */
  parents?: Record<string, string>;
  /** composite → the child entered first (Mermaid `[*] --> child` inside it); two or more starts = parallel regions */
  initials?: Record<string, string[]>;
  /** stages with a `--> [*]`: the run (top level) or their composite (nested) may end there */
  ends?: string[];
  /** Mermaid `<<choice>>` pseudo-states (drawn as decisions; a run passes through them like any stage) */
  choices?: string[];
  /** Mermaid `<<fork>>` / `[[fork]]`: entering it enters every stage it leads to at once (parallel branches) */
  forks?: string[];
  /** Mermaid `<<join>>` / `[[join]]`: entered when every branch leading into it has arrived */
  joins?: string[];
  /** "A -> B" → the transition's label ("[*] -> A" for a start, "A -> [*]" for an end) */
  labels?: Record<string, string>;
  /** stage → the step it runs (lib/steps: llm, http, code, review, wait) and where the run goes next */
  steps?: Record<string, StepSpec>;
  /** stage → its description (Mermaid `A: text`) */
  notes?: Record<string, string>;
  /** the run's inputs: a JSON Schema, or the short form { topic: string, urgent?: boolean } (lib/flows/inputs.ts) */
  inputs?: Record<string, unknown>;
  /** a run's name, a template over its input: "{{input.ticket_id}}: {{input.subject}}" */
  run_name?: string;
  /** what a finished run produced, a template (default: the last step's output) */
  result?: string;
}

/** A problem found in a definition, with the 1-based line of the source it comes from when known. */
export interface FlowIssue {
  message: string;
  line?: number;
  path?: string;
}

/** A parsed source: the config (possibly invalid) and where each stage / transition was written. */
export interface ParsedFlow {
  config: FlowConfig;
  /** stage → line; "A -> B" → line */
  lines: Record<string, number>;
  issues: FlowIssue[];
  /** arrows written in the source (a pair written twice with two labels counts twice) */
  arrows: number;
  /** a Mermaid diagram with no id and no title (and none given): checked, but not saved without one */
  unnamed?: boolean;
}

export const END = "[*]";
export const edgeKey = (from: string, to: string) => `${from} -> ${to}`;

/** rec[key] when rec has it as its own property: a stage may be called "constructor" or "toString" */
export const own = <T>(rec: Record<string, T> | undefined, key: string): T | undefined => (rec && Object.hasOwn(rec, key) ? rec[key] : undefined);

/** composite stage → its children, in the order the stages are listed */
export function childrenOf(c: FlowConfig): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of c.stages) {
    const p = own(c.parents, s);
    if (p) out.set(p, [...(out.get(p) ?? []), s]);
  }
  return out;
}
