// conversation (docs/guide/15-conversation-and-your-own-workflows.md) — the conversation stages of a coding agent, as a stage machine built from a
// StateConfig like any user-defined workflow (lib/flows). Stages, valid next stages, tools and
// keywords are the seed's tables; INITIAL has no keywords ("initial message, no prior context").
import { flowWorkflow } from "../../lib/flows/machine";
import type { FlowConfig } from "../../lib/flows/types";

export const CONVERSATION: FlowConfig = {
  id: "conversation",
  title: "Conversation stages",
  description:
    "A coding agent's conversation moves INITIAL → PLANNING → READING → ANALYSIS → EXECUTION → VERIFICATION → COMPLETION. Each message is scored by the stage detector; a move happens only when it is valid, past the cooldown, confident enough when it goes backward, and allowed by the validators. Each stage allows its own tools.",
  stages: ["INITIAL", "PLANNING", "READING", "ANALYSIS", "EXECUTION", "VERIFICATION", "COMPLETION"],
  initial_stage: "INITIAL",
  transitions: {
    INITIAL: ["PLANNING", "READING", "EXECUTION"],
    PLANNING: ["READING", "ANALYSIS", "EXECUTION"],
    READING: ["ANALYSIS", "EXECUTION", "PLANNING"],
    ANALYSIS: ["EXECUTION", "PLANNING"],
    EXECUTION: ["VERIFICATION", "READING", "COMPLETION"],
    VERIFICATION: ["COMPLETION", "EXECUTION"],
    COMPLETION: [],
  },
  stage_tools: {
    INITIAL: ["read", "search", "code_search", "overview"],
    PLANNING: ["read", "search", "code_search", "overview"],
    READING: ["read", "search", "code_search", "overview", "web_search"],
    ANALYSIS: ["read", "search", "code_search", "overview"],
    EXECUTION: ["write", "edit", "shell", "git_commit", "refactor"],
    VERIFICATION: ["shell", "read", "search", "test"],
    COMPLETION: ["read"],
  },
  keywords: {
    PLANNING: ["plan", "approach", "strategy", "how to"],
    READING: ["read", "look at", "check", "examine"],
    ANALYSIS: ["analyze", "understand", "figure out"],
    EXECUTION: ["write", "create", "implement", "change", "fix"],
    VERIFICATION: ["verify", "test", "check", "confirm"],
    COMPLETION: ["done", "complete", "finished"],
  },
  notes: {
    INITIAL: "Starting point when the conversation begins",
    PLANNING: "Strategizing the approach to the task",
    READING: "Gathering information from files",
    ANALYSIS: "Analyzing the gathered information",
    EXECUTION: "Making changes or running commands",
    VERIFICATION: "Validating that the changes work",
    COMPLETION: "The task is done",
  },
  // the seed's stability settings and its RequireMinToolsValidator example
  cooldown_seconds: 1,
  backward_threshold: 0.8,
  detection_threshold: 0.3,
  validators: [{ type: "min_tool_calls", target: "COMPLETION", min: 3 }],
};

export const conversation = {
  ...flowWorkflow(CONVERSATION, { seed: "003_ad981ad116a323bd.txt", example: { task: "Plan how to refactor the auth module" } }),
  // what a fork may edit: the task the run was started with; stages, visits, tools and decisions are the machine's
  forkEditable: ["task"],
};
