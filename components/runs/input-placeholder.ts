// The New run form's placeholder for one text field: the workflow's example value; for a
// user-defined stage workflow without one, a first message made from its own definition (the
// label of a move out of its first stage, else one of the next stage's keywords).
import { labelledEdges } from "@/lib/flows/detect";
import { own } from "@/lib/flows/types";
import type { WorkflowDefinition } from "@/lib/machines/types";

export function inputPlaceholder(def: Pick<WorkflowDefinition, "title" | "example" | "flow">, field: string): string {
  const value = def.example && typeof def.example === "object" ? (def.example as Record<string, unknown>)[field] : undefined;
  if (typeof value === "string" && value.trim()) return value;
  const flow = def.flow;
  if (!flow) return "";
  const start = flow.initial_stage;
  const edge = labelledEdges(flow, [start])[0];
  if (edge) return `e.g. "${edge.label}" (moves ${start} → ${edge.to === "[*]" ? "end" : edge.to})`;
  for (const next of own(flow.transitions, start) ?? []) {
    const keyword = own(flow.keywords, next)?.[0];
    if (keyword) return `e.g. a message about ${keyword} (moves ${start} → ${next})`;
  }
  return `The first message for ${def.title}; it starts in ${start}`;
}
