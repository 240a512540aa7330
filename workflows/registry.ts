// The built-in workflows: one line each. A workflow is its folder (docs/guide/17-add-a-workflow.md):
// index.ts default-exports builtIn({ definition, effects, views, … }); lib/machines/registry.ts
// lists them in the order their `order` says.
export { default as swissArmy } from "./swiss-army";
export { default as deepResearch } from "./deep-research";
export { default as domainAgent } from "./domain-agent";
export { default as processingModes } from "./processing-modes";
export { default as conversation } from "./conversation";
