// Candidate definitions of evaluations (guide 19 §4): validated, held in memory for the evaluation
// only and never registered, so no new run ever starts on one. The engine finds an evaluation run's
// machine here (its replay spec names the evaluation); the registry never sees them.
import type { WorkflowDefinition } from "../machines/types";

const KEY = Symbol.for("switchyard.eval-candidates");
const held: Map<string, WorkflowDefinition> = ((globalThis as { [KEY]?: Map<string, WorkflowDefinition> })[KEY] ??= new Map());

export function holdCandidate(evalId: string, def: WorkflowDefinition): void {
  held.set(evalId, def);
}

export function releaseCandidate(evalId: string): void {
  held.delete(evalId);
}

export function candidateOf(evalId: string | undefined): WorkflowDefinition | undefined {
  return evalId ? held.get(evalId) : undefined;
}
