// What a workflow is: a pure XState machine plus the few derived views the engine and the
// UI need (input schema, external events, review prompts, output, metrics). Side effects are
// named actors / actions; their implementations live in lib/effects.
import type { AnyStateMachine, EventObject } from "xstate";
import type { ArtifactWrite, RunStatus, TransitionRow } from "../engine/store/types";
import type { z } from "zod";
import type { FlowConfig } from "../flows/types";
import type { InputField } from "../flows/inputs";

export interface ReviewView {
  prompt: string;
  payload: Record<string, unknown>;
}

/** Who decides a review, and what they send with the decision. */
export interface DecisionWho {
  reviewer?: string;
  /** the name is a signed-in account's (accounts on): compared exactly, not normalised */
  verified?: boolean;
  /** the decision's data (`edited` for an edit) */
  data?: Record<string, unknown>;
}

/** A decision refused before it is applied: 409 (conflict with the review's state) or 422 (the decision itself is invalid). */
export interface DecisionRefusal {
  status: 409 | 422;
  message: string;
}

/** A per-state metric as the seed's "Key Metrics Per State" table states it. */
export interface StateMetricSpec {
  state: string;
  metric: string;
  target: string;
  alert: string;
  /** how it is computed from stored runs, see lib/metrics */
  compute:
    | { kind: "duration"; state: string; targetMs: number; alertMs: number }
    | { kind: "outcome-rate"; state: string; good: string[]; of: string[]; target: number; alert: number }
    | { kind: "zero-share"; state: string; field: string; alertShare: number };
}

export interface WorkflowDefinition {
  id: string;
  title: string;
  /** the seed document this workflow implements */
  seed: string;
  description: string;
  machine: AnyStateMachine;
  /**
   * run input, validated before a run starts (z.safeParse(def.input, …)). Schemas are held as
   * z.core.$ZodType, not z.ZodType: relating each concrete schema type to z.ZodType's ~60
   * this-typed methods cost tsc more than half its instantiations; $ZodType keeps the
   * output/input types at a fraction of the cost.
   */
  input: z.core.$ZodType;
  /** events a client may send (REST / UI), each validated by its schema */
  events: Record<string, z.core.$ZodType>;
  /** events sent right after the run is created, committed with its first transition */
  startEvents?: (input: unknown) => EventObject[];
  /** the prompt and payload of the review opened when a state tagged "human" is entered */
  review?: (state: string, context: unknown) => ReviewView;
  /** why a decision on the review of `state` is refused before it is applied (e.g. the same person approving twice), or null */
  refuseDecision?: (state: string, context: unknown, decision: string, who: DecisionWho) => DecisionRefusal | null;
  /** the context keys a fork may replace (`POST /api/runs/{id}/fork` `context`); none when absent */
  forkEditable?: readonly string[];
  /** the context a fork starts from, cleared of what it may not carry over (approvals, an imported run's decisions) */
  forkStart?: (context: unknown, from: { imported: boolean }) => unknown;
  /** the run's output column: for long-lived runs, the latest outcome */
  output?: (context: unknown) => unknown;
  metrics?: StateMetricSpec[];
  /** what a finished run produced, shown first on its page (the report, the answer, the output) */
  result?: (context: unknown) => RunResult | null;
  /** files the run keeps (task.md, logs …): what one commit writes, derived from the step */
  artifacts?: (step: ArtifactStep) => ArtifactWrite[];
  /** what a run is called when it starts (its request, topic, query …); default: the input's request, topic … field (lib/machines/run-name.ts) */
  runName?: (input: unknown, context: unknown) => string | null | undefined;
  /** what a long-lived run works on now, shown under its name when it differs (a later cycle's request) */
  runSubtitle?: (context: unknown) => string | null | undefined;
  /** the New run form's fields (a user workflow's declared inputs, or the names its templates read) */
  inputFields?: InputField[];
  /** a sample input for the New run form */
  example?: unknown;
  /** input fields the New run form offers as a choice (empty = leave the field out) */
  inputChoices?: Record<string, { label: string; options: readonly string[]; empty: string }>;
  /** the text fields of client events, for the run page's forms (events without fields get a button) */
  eventFields?: Record<string, { name: string; label: string; placeholder?: string }[]>;
  /** a stage machine's StateConfig (docs/guide/15-conversation-and-your-own-workflows.md: the conversation and users' own workflows) */
  flow?: FlowConfig;
  /** a user-defined workflow's version (null for built-in ones) */
  version?: number | null;
}

export interface RunResult {
  title: string;
  /** Markdown */
  text: string;
  /** the run's artifact that holds it whole, for a download link */
  file?: string;
  /** who wrote it: "offline engine" or the model's name */
  by?: string | null;
}

export interface ArtifactStep {
  runId: string;
  now: number;
  status: RunStatus;
  before: unknown;
  after: unknown;
  transitions: TransitionRow[];
}

/** State meta understood by the engine and the diagram. */
export interface StateMeta {
  /** the seed's name for the state (defaults to the key) */
  name?: string;
  summary?: string;
  /** opens a review when entered; `assign` and `due` route it (lib/reviews/routes.ts) */
  review?: { kind: string; decisions: string[]; /** distinct people who must approve (more than one: a quorum) */ approvers?: number; assign?: string[]; due?: { after_s: number; escalate: string[] } };
  /** the hard timeout the seed gives the state, shown on the diagram */
  timeout?: string;
}
