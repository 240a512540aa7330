// The model port: what every workflow step calls to think. Two adapters implement it: the
// offline engine (deterministic, network-free, the default) and the OpenAI-compatible one
// (any endpoint speaking chat completions, several in fallback order).
//
// Offline, one way: a step never asks whether a model is connected. Each call says what the step
// does without a model (`offline`: its own deterministic algorithm) and the offline engine runs
// it; a model ignores it. Work that is not a single call takes the same fallback through
// `ctx.model.think` (lib/llm/bound.ts). What is recorded (lib/llm/recording.ts): a usage row per
// model call; per answer the offline engine gives in a call's place, one row marked as offline
// (its adapter, no tokens), counted as offline, never as a model call.
import type { z } from "zod";

export interface Passage {
  /** citation id shown to the reader, e.g. "pattern:retry-backoff" */
  id: string;
  title: string;
  text: string;
  score?: number;
}

/** What every call says: its purpose, prompt and context, and where it happens. */
export interface ModelRequest {
  /** what the step is for, e.g. "execute" — recorded with usage */
  purpose: string;
  system?: string;
  prompt: string;
  passages?: Passage[];
  signal?: AbortSignal;
  /** called with each chunk of text as it is produced (streams when the adapter can) */
  onText?: (chunk: string) => void;
  /** where the call happens, for usage records: run id, state, and the effect's idempotency key */
  runId?: string;
  state?: string;
  key?: string;
  /** upper bound for the reply */
  maxTokens?: number;
  temperature?: number;
}

export interface GenerateRequest extends ModelRequest {
  /**
   * what the step writes itself when no model is connected (its own algorithm, with the ids of the
   * passages it quotes); without it the offline engine quotes `passages`. A model ignores it.
   */
  offline?: () => OfflineText | Promise<OfflineText>;
}

/** A text a step writes itself when no model is connected (with the ids of the passages it quotes). */
export type OfflineText = string | { text: string; citations?: string[] };

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** true when counted by the adapter's estimate rather than reported by a model */
  estimated: boolean;
}

export interface GenerateResult {
  text: string;
  /** who produced it, shown in the UI: "offline engine" or "<model> @ <endpoint name>" */
  adapter: string;
  usage: Usage;
  latencyMs: number;
  /** ids of the passages the text quotes (the offline engine always knows; models when they cite [n]) */
  citations: string[];
  /** attempts made across retries and endpoints */
  attempts?: number;
  /** served from the journal: the same call (same key) already completed */
  replayed?: boolean;
}

export interface ObjectRequest<T> extends ModelRequest {
  /** a zod schema (held as z.core.$ZodType: see WorkflowDefinition.input in lib/machines/types.ts) */
  schema: z.core.$ZodType<T>;
  /** name of the JSON schema sent to the model */
  schemaName: string;
  /** how the offline engine produces the object: the step's own deterministic algorithm (validated by `schema`; it may throw a classified error: what the step cannot do without a model) */
  offline: () => T | Promise<T>;
}

export interface ObjectResult<T> extends GenerateResult {
  object: T;
}

export interface EmbedResult {
  vectors: number[][];
  adapter: string;
  usage: Usage;
  latencyMs: number;
}

export interface ModelPort {
  readonly name: string;
  /** true for the offline engine */
  readonly offline: boolean;
  /** the model a call asks for first (traces' gen_ai.request.model), and the embeddings model */
  readonly model?: string;
  readonly embeddingsModel?: string;
  generate(req: GenerateRequest): Promise<GenerateResult>;
  /** a validated object, or a classified ModelError */
  generateObject<T>(req: ObjectRequest<T>): Promise<ObjectResult<T>>;
  /** embeddings, when an embeddings endpoint is configured */
  embed?(texts: string[], signal?: AbortSignal, at?: Pick<ModelRequest, "runId" | "state">): Promise<EmbedResult>;
  /**
   * The offline engine answering with a step's own algorithm for work that is not one call
   * (`ctx.model.think`), recorded as generate's offline answers are (RecordingModel); a port that
   * records nothing has none, and the algorithm just runs.
   */
  answerOffline?<T>(at: OfflineSite, answer: () => T | Promise<T>): Promise<T>;
}

/** Where an offline answer is given: what a usage row is recorded under. */
export type OfflineSite = Pick<ModelRequest, "purpose" | "runId" | "state" | "key">;
