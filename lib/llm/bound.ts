// The model as an effect sees it (ctx.model): the runtime's model port bound to the invocation that
// calls it: its run and state (usage rows), its invocation key (the journal answers a call that
// already completed when the effect runs again after a restart) and its cancellation signal. An
// effect says only what it asks.
import type { EmbedResult, GenerateRequest, GenerateResult, ModelPort, ObjectRequest, ObjectResult } from "./types";

/** The invocation a model is bound to (the effect's context: its signal is read when a call starts). */
export interface ModelSite {
  runId: string;
  state: string;
  key: string;
  readonly signal: AbortSignal;
}

type Site = "runId" | "state" | "key" | "signal";

export interface BoundModel {
  /** the port's name (the model, or "offline engine") */
  readonly name: string;
  /** true for the offline engine */
  readonly offline: boolean;
  generate(req: Omit<GenerateRequest, Site>): Promise<GenerateResult>;
  /** a validated object, or a classified ModelError; offline, the step's own algorithm (`req.offline`) answers */
  generateObject<T>(req: Omit<ObjectRequest<T>, Site>): Promise<ObjectResult<T>>;
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
    get offline() {
      return port().offline;
    },
    generate: (req) => port().generate({ ...req, ...where() }),
    generateObject: (req) => port().generateObject({ ...req, ...where() }),
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
