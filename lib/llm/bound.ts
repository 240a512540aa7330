// The model as an effect sees it (ctx.model): the runtime's model port bound to the invocation that
// calls it: its run and state (usage rows), its invocation key (the journal answers a call that
// already completed when the effect runs again after a restart) and its cancellation signal. An
// effect says only what it asks.
//
// Offline (no model endpoint), a call site says what the step does instead with `offline`, the
// step's own deterministic algorithm: generateObject's is run by the offline engine (validated by
// the schema, recorded as the offline engine's step); generate's, when given, answers without a
// call (nothing recorded: no call was made); without one, the offline engine quotes the passages.
import { NO_TOKENS, OFFLINE_ADAPTER } from "./offline";
import type { EmbedResult, GenerateRequest, GenerateResult, ModelPort, ObjectRequest, ObjectResult } from "./types";

/** The invocation a model is bound to (the effect's context: its signal is read when a call starts). */
export interface ModelSite {
  runId: string;
  state: string;
  key: string;
  readonly signal: AbortSignal;
}

type Site = "runId" | "state" | "key" | "signal";

/** A text the step writes itself when no model is configured (with the ids of the passages it quotes). */
export type OfflineText = string | { text: string; citations?: string[] };

export type BoundGenerate = Omit<GenerateRequest, Site> & { offline?: () => OfflineText | Promise<OfflineText> };

export interface BoundModel {
  /** the port's name (the model, or "offline engine") */
  readonly name: string;
  /** true for the offline engine */
  readonly offline: boolean;
  generate(req: BoundGenerate): Promise<GenerateResult>;
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
    generate: async ({ offline, ...req }) => {
      const p = port();
      if (!offline || !p.offline) return p.generate({ ...req, ...where() });
      const started = performance.now();
      const own = await offline();
      const { text, citations = [] } = typeof own === "string" ? { text: own } : own;
      return { text, citations, adapter: OFFLINE_ADAPTER, usage: { ...NO_TOKENS }, latencyMs: Math.round(performance.now() - started) };
    },
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
