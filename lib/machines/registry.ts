// The catalog of built-in workflows. Everything about a workflow's shape (diagram, REST
// description, tests) is derived from the machine registered here.
import { deepResearch } from "./deep-research";
import { domainAgent } from "./domain-agent";
import { processingModes } from "./processing-modes";
import { swissArmy } from "./swiss-army";
import type { WorkflowDefinition } from "./types";

export const BUILT_IN: WorkflowDefinition[] = [swissArmy, deepResearch, domainAgent, processingModes];

const byId = new Map(BUILT_IN.map((w) => [w.id, w]));

export function findWorkflow(id: string): WorkflowDefinition | undefined {
  return byId.get(id);
}

export function listWorkflows(): WorkflowDefinition[] {
  return BUILT_IN;
}
