// Switchyard's part of a Mermaid diagram, in its front matter: a stateDiagram draws the stages and
// moves, and its YAML front matter may carry the workflow's id, its inputs, its run_name and result
// templates and what each stage does, under the key `switchyard` (the title stays Mermaid's own `title`):
//
//   ---
//   title: Posts
//   switchyard:
//     id: posts
//     inputs: { topic: string }
//     steps:
//       DRAFT:
//         llm: { prompt: "Write about {{input.topic}}" }
//         next: REVIEW
//   ---
//   stateDiagram-v2
//   …
//
// Mermaid ignores keys it does not know, so the diagram still renders anywhere. The steps are
// checked like those of a YAML definition, each problem on its line in the file.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, stringify } from "yaml";
import { z } from "zod";
import { StepsSchema, type StepSpec } from "../steps/schema";
import type { FlowIssue } from "./types";

/** the front-matter key that holds Switchyard's part of a diagram */
export const FRONT_KEY = "switchyard";

/** the keys a definition shares in every format: declared inputs, the run name and result templates */
export const RunKeys = {
  inputs: z.record(z.string(), z.unknown()).optional(),
  run_name: z.string().trim().min(1).max(500).optional(),
  result: z.string().trim().min(1).max(20_000).optional(),
};
const Id = z.string().regex(/^[a-z][a-z0-9-]{1,62}$/, "must be 2–63 lower-case letters, digits or dashes, starting with a letter");

const Front = z.object({ id: Id.optional(), ...RunKeys, steps: StepsSchema.optional() }).strict();

/** What the `switchyard:` block carries besides the steps. */
export interface FrontKeys {
  id?: string;
  inputs?: Record<string, unknown>;
  run_name?: string;
  result?: string;
}

/**
 * The `switchyard:` block of front matter `text`, whose first line is line `offset + 1` of the
 * file: its steps, the line of each step's keys ("steps.DRAFT.llm" → line), and its problems.
 */
export function readFrontSteps(text: string, offset: number): { steps?: Record<string, StepSpec>; keys: FrontKeys; lines: Record<string, number>; issues: FlowIssue[] } {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: true, prettyErrors: false });
  const lineOf = (pos: number | undefined) => (pos === undefined ? undefined : counter.linePos(pos).line + offset);
  const lines: Record<string, number> = {};
  const issues: FlowIssue[] = [];
  const errors = [...doc.errors, ...doc.warnings.filter((w) => w.code === "DUPLICATE_KEY")];
  if (errors.length) return { keys: {}, lines, issues: errors.map((e) => ({ message: `front matter: ${e.message.split("\n")[0]}`, line: lineOf(e.pos[0]) })) };
  const block = doc.get(FRONT_KEY, true);
  if (block === undefined) return { keys: {}, lines, issues };
  const put = (key: string, pos: number | undefined) => {
    const line = lineOf(pos);
    if (line !== undefined && lines[key] === undefined) lines[key] = line;
  };
  const walk = (node: unknown, path: string, depth: number) => {
    if (depth > 6) return;
    if (isSeq(node)) node.items.forEach((item, i) => (put(`${path}.${i}`, (item as { range?: [number] }).range?.[0]), walk(item, `${path}.${i}`, depth + 1)));
    if (!isMap(node)) return;
    for (const pair of node.items) {
      if (!isScalar(pair.key)) continue;
      const at = `${path}.${String(pair.key.value)}`;
      put(at, pair.key.range?.[0]);
      walk(pair.value, at, depth + 1);
    }
  };
  if (isMap(block)) {
    walk(block.get("steps", true), "steps", 0);
    walk(block.get("inputs", true), "inputs", 3);
    for (const key of ["id", "inputs", "run_name", "result"]) {
      const node = block.get(key, true) as { range?: [number] } | undefined;
      if (node && typeof node === "object" && node.range) put(key, node.range[0]);
    }
  }
  const blockLine = lineOf((block as { range?: [number] }).range?.[0]);
  let data: unknown;
  try {
    data = (doc.toJS({ maxAliasCount: 50 }) as Record<string, unknown>)[FRONT_KEY];
  } catch (e) {
    return { keys: {}, lines, issues: [{ message: `front matter: ${(e as Error).message.split("\n")[0]}`, line: blockLine }] };
  }
  const shape = Front.safeParse(data ?? {});
  if (!shape.success) {
    for (const i of shape.error.issues) {
      const path = i.path.map(String);
      let line: number | undefined;
      for (let n = path.length; n > 0 && line === undefined; n--) line = lines[path.slice(0, n).join(".")];
      issues.push({ message: `${FRONT_KEY}.${path.join(".") || ""}: ${i.message}`.replace(/\.: /, ": "), line: line ?? blockLine, path: path.join(".") });
    }
    return { keys: {}, lines, issues };
  }
  const { steps, ...keys } = shape.data;
  return { steps: steps as Record<string, StepSpec> | undefined, keys: Object.fromEntries(Object.entries(keys).filter(([, v]) => v !== undefined)) as FrontKeys, lines, issues };
}

/** The front-matter lines (without the --- fences) of the `switchyard:` block: id, inputs, run_name, result, steps. */
export function frontYaml(keys: FrontKeys & { steps?: Record<string, StepSpec> }): string {
  const block = Object.fromEntries(Object.entries({ id: keys.id, inputs: keys.inputs, run_name: keys.run_name, result: keys.result, steps: keys.steps && Object.keys(keys.steps).length ? keys.steps : undefined }).filter(([, v]) => v !== undefined));
  return stringify({ [FRONT_KEY]: block }, { lineWidth: 0 }).trimEnd();
}
