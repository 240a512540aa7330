// The model as an effect sees it (ctx.model): the runtime's model port bound to the invocation that
// calls it: its run and state (usage rows), its invocation key (the journal answers a call that
// already completed when the effect runs again after a restart) and its cancellation signal. An
// effect says only what it asks.
//
// Offline (no model connected) has one mechanism, and a step never asks which it is: every call
// brings the step's own deterministic algorithm as `offline` (required for objects; for text,
// without one, the offline engine quotes the passages), and the offline engine answers with it
// where a model would have. Work that is not exactly one call (a model path of several calls, or
// of none) brings the same fallback to `think`. What is recorded: see lib/llm/recording.ts (a row
// per model call; per offline answer, `think`'s included, one row marked as offline, no tokens).
import type { EmbedResult, GenerateRequest, GenerateResult, ModelPort, ObjectRequest, ObjectResult } from "./types";

export type { OfflineText } from "./types";

/** The invocation a model is bound to (the effect's context: its signal is read when a call starts). */
export interface ModelSite {
  runId: string;
  state: string;
  key: string;
  readonly signal: AbortSignal;
}

type Site = "runId" | "state" | "key" | "signal";

export type BoundGenerate = Omit<GenerateRequest, Site>;

export interface BoundModel {
  /** the port's name (the model, or "offline engine") */
  readonly name: string;
  /** text; offline, the step's own text (`req.offline`) or the passages quoted */
  generate(req: BoundGenerate): Promise<GenerateResult>;
  /** a validated object, or a classified ModelError; offline, the step's own algorithm (`req.offline`) answers */
  generateObject<T>(req: Omit<ObjectRequest<T>, Site>): Promise<ObjectResult<T>>;
  /**
   * Work a model does in more (or fewer) than one call: `withModel` with a model connected, the
   * step's own algorithm `offline` without one, recorded as one offline answer under `purpose`. The
   * one place such a choice is made; a step never branches on offline itself.
   */
  think<T>(purpose: string, withModel: () => Promise<T>, offline: () => T | Promise<T>): Promise<T>;
  /** embeddings counted in the run's usage; undefined when no embeddings endpoint is configured */
  readonly embed: ((texts: string[]) => Promise<EmbedResult>) | undefined;
  /** the same model under a sub-key of the invocation (`<key>:<sub>`): an effect that makes one call per item (a task, an attempt) */
  at(sub: string): BoundModel;
}

export function bindModel(port: () => ModelPort, site: ModelSite): BoundModel {
  const where = () => ({ runId: site.runId, state: site.state, key: site.key, signal: site.signal });
  return {
    get name() {
      return port().name;
    },
    generate: (req) => port().generate({ ...req, ...where() }),
    generateObject: (req) => port().generateObject({ ...req, ...where() }),
    think: async (purpose, withModel, offline) => {
      const p = port();
      if (!p.offline) return withModel();
      return p.answerOffline ? p.answerOffline({ purpose, runId: site.runId, state: site.state, key: site.key }, offline) : offline();
    },
    get embed() {
      const p = port();
      return p.embed ? (texts: string[]) => p.embed!(texts, site.signal, { runId: site.runId, state: site.state }) : undefined;
    },
    at: (sub) =>
      bindModel(port, {
        runId: site.runId,
        state: site.state,
        key: `${site.key}:${sub}`,
        get signal() {
          return site.signal;
        },
      }),
  };
}
