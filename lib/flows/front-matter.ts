// Steps in a Mermaid diagram's front matter: a stateDiagram draws the stages and moves,
// and its YAML front matter may carry what each stage does, under the key `switchyard`:
//
//   ---
//   title: Posts
//   switchyard:
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

const Front = z.object({ steps: StepsSchema.optional() }).strict();

/**
 * The `switchyard:` block of front matter `text`, whose first line is line `offset + 1` of the
 * file: its steps, the line of each step's keys ("steps.DRAFT.llm" → line), and its problems.
 */
export function readFrontSteps(text: string, offset: number): { steps?: Record<string, StepSpec>; lines: Record<string, number>; issues: FlowIssue[] } {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: true, prettyErrors: false });
  const lineOf = (pos: number | undefined) => (pos === undefined ? undefined : counter.linePos(pos).line + offset);
  const lines: Record<string, number> = {};
  const issues: FlowIssue[] = [];
  const errors = [...doc.errors, ...doc.warnings.filter((w) => w.code === "DUPLICATE_KEY")];
  if (errors.length) return { lines, issues: errors.map((e) => ({ message: `front matter: ${e.message.split("\n")[0]}`, line: lineOf(e.pos[0]) })) };
  const block = doc.get(FRONT_KEY, true);
  if (block === undefined) return { lines, issues };
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
  if (isMap(block)) walk(block.get("steps", true), "steps", 0);
  const blockLine = lineOf((block as { range?: [number] }).range?.[0]);
  let data: unknown;
  try {
    data = (doc.toJS({ maxAliasCount: 50 }) as Record<string, unknown>)[FRONT_KEY];
  } catch (e) {
    return { lines, issues: [{ message: `front matter: ${(e as Error).message.split("\n")[0]}`, line: blockLine }] };
  }
  const shape = Front.safeParse(data ?? {});
  if (!shape.success) {
    for (const i of shape.error.issues) {
      const path = i.path.map(String);
      let line: number | undefined;
      for (let n = path.length; n > 0 && line === undefined; n--) line = lines[path.slice(0, n).join(".")];
      issues.push({ message: `${FRONT_KEY}.${path.join(".") || ""}: ${i.message}`.replace(/\.: /, ": "), line: line ?? blockLine, path: path.join(".") });
    }
    return { lines, issues };
  }
  return { steps: shape.data.steps as Record<string, StepSpec> | undefined, lines, issues };
}

/** The front-matter lines (without the --- fences) that carry `steps`. */
export function frontStepsYaml(steps: Record<string, StepSpec>): string {
  return stringify({ [FRONT_KEY]: { steps } }, { lineWidth: 0 }).trimEnd();
}
