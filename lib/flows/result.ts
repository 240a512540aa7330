// What a finished run of a user workflow produced, for the result card above its diagram (issue
// 34): the definition's `result:` template rendered over the run (input, steps, review), else the
// output of the last step that finished. The run document's `output` keeps its own meaning.
import type { RunResult } from "../machines/types";
import { scopeOf, type StepContext, type StepRecord } from "../steps/compile";
import { renderJson } from "../steps/template";
import type { FlowConfig } from "./types";

const asText = (v: unknown): string => (typeof v === "string" ? v : `\`\`\`json\n${JSON.stringify(v, null, 2)}\n\`\`\``);

/** The result card of a run of `c`, or null when nothing was produced. */
export function flowResult(c: Pick<FlowConfig, "result" | "steps">, ctx: StepContext | null): RunResult | null {
  if (!ctx || typeof ctx !== "object") return null;
  if (c.result) {
    const value = renderJson(c.result, scopeOf(ctx));
    if (value === null || value === undefined || value === "") return null;
    return { title: "Result", text: asText(value) };
  }
  // the last step that finished with an output (not an error)
  let last: [string, StepRecord] | null = null;
  for (const [stage, rec] of Object.entries(ctx.steps ?? {})) {
    if (!rec || rec.error || rec.output === undefined || rec.output === null) continue;
    if (!last || rec.at >= last[1].at) last = [stage, rec];
  }
  if (!last) return null;
  return { title: `Result: ${last[0]}'s output`, text: asText(last[1].output), by: last[1].by ?? null };
}
