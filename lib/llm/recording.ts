// A model port that records every model call (tokens, latency, endpoint, outcome) per run and
// state, and journals completed calls by their idempotency key: when an effect re-runs after a
// restart, a call that already completed is answered from the journal instead of being made again.
//
// The recording rule, one for every step: a model call records one usage row (the ModelCall
// table), completed or failed. Every answer the offline engine gives in a model call's place
// (generateObject's `offline`, generate's own `offline` text, generate quoting passages, and
// `ctx.model.think`'s offline branch through `answerOffline`) records exactly one row marked as
// offline: the offline engine's adapter, no tokens, its latency, under the same key a call would
// have (a re-run after a restart records it once). Usage counts those rows as `offline`, never as
// model calls (`llmCalls`) and never as tokens (lib/metrics/model-usage.ts). Offline answers are
// not journaled: they are deterministic, run again they answer the same. An offline algorithm that
// throws gave no answer: no row, the step's own error. The trace shows offline answers as GenAI
// spans whose provider is "switchyard.offline".
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db } from "../db/client";
import type { Clock } from "../engine/clock";
import { isModelError } from "./errors";
import { NO_TOKENS, OFFLINE_ADAPTER } from "./offline";
import type { EmbedResult, GenerateRequest, GenerateResult, ModelPort, ModelRequest, ObjectRequest, ObjectResult, OfflineSite } from "./types";
import { traceModel, type ModelAnswer, type ModelCall } from "../telemetry";

const answerOf = (out: Pick<GenerateResult, "adapter" | "usage">): ModelAnswer => ({ adapter: out.adapter, inputTokens: out.usage.promptTokens, outputTokens: out.usage.completionTokens, estimated: out.usage.estimated });
const OFFLINE_ANSWER: ModelAnswer = { adapter: OFFLINE_ADAPTER, inputTokens: 0, outputTokens: 0, estimated: false };

export interface CallRecord {
  runId?: string;
  state?: string;
  purpose: string;
  adapter: string;
  ok: boolean;
  promptTokens: number;
  completionTokens: number;
  latencyMs: number;
}

function journalKey(req: ModelRequest): string | null {
  return req.key ? `${req.key}#${req.purpose}` : null;
}

export class RecordingModel implements ModelPort {
  constructor(
    private inner: ModelPort,
    private db: Db,
    private clock: Clock,
    private onCall?: (c: CallRecord) => void,
  ) {}

  get name() {
    return this.inner.name;
  }

  get offline() {
    return this.inner.offline;
  }

  get model() {
    return this.inner.model;
  }

  get embeddingsModel() {
    return this.inner.embeddingsModel;
  }

  /** what a trace's GenAI span says of a call (lib/telemetry) */
  private traced(operation: ModelCall["operation"], at: Pick<ModelRequest, "runId" | "state"> | undefined): ModelCall {
    const model = (operation === "embeddings" ? this.inner.embeddingsModel : this.inner.model) ?? this.inner.name;
    return { operation, provider: this.inner.offline ? "switchyard.offline" : "openai", model, runId: at?.runId, state: at?.state };
  }

  get embed(): ModelPort["embed"] {
    const inner = this.inner;
    if (!inner.embed) return undefined;
    // `at`: the run and state the embedding is for, so that it counts in the run's usage
    return async (texts: string[], signal?: AbortSignal, at?: Pick<ModelRequest, "runId" | "state">): Promise<EmbedResult> => {
      const started = performance.now();
      try {
        const out = await traceModel(this.traced("embeddings", at), () => inner.embed!(texts, signal), answerOf);
        await this.record({ purpose: "embed", ...at }, { adapter: out.adapter, usage: out.usage, latencyMs: out.latencyMs, attempts: 1 }, null, null);
        return out;
      } catch (e) {
        await this.record({ purpose: "embed", ...at }, null, e, Math.round(performance.now() - started));
        throw e;
      }
    };
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const replay = await this.replay(req);
    if (replay) return replay;
    // no model: the offline engine answers (its own text, or the passages quoted), one offline row
    if (this.inner.offline) return this.offlineAnswer(req, () => this.inner.generate(req));
    const started = performance.now();
    try {
      const out = await traceModel(this.traced("chat", req), () => this.inner.generate(req), answerOf);
      await this.record(req, out, null, null, out.text);
      return out;
    } catch (e) {
      await this.record(req, null, e, Math.round(performance.now() - started));
      throw e;
    }
  }

  async generateObject<T>(req: ObjectRequest<T>): Promise<ObjectResult<T>> {
    const replay = await this.replay(req);
    if (replay) {
      const parsed = z.safeParse(req.schema, JSON.parse(replay.text));
      if (parsed.success) return { ...replay, object: parsed.data };
    }
    // no model: the step's own algorithm, validated by the schema, one offline row
    if (this.inner.offline) return this.offlineAnswer(req, () => this.inner.generateObject(req));
    const started = performance.now();
    try {
      const out = await traceModel(this.traced("chat", req), () => this.inner.generateObject(req), answerOf);
      await this.record(req, out, null, null, out.text);
      return out;
    } catch (e) {
      await this.record(req, null, e, Math.round(performance.now() - started));
      throw e;
    }
  }

  /** `ctx.model.think`'s offline branch: the step's own algorithm, recorded as every offline answer is. */
  answerOffline<T>(at: OfflineSite, answer: () => T | Promise<T>): Promise<T> {
    return this.offlineAnswer(at, async () => answer());
  }

  /**
   * The one place an offline answer is given and recorded: traced as the offline engine's, then one
   * row (offline engine, no tokens, the answer's latency) keyed like the call it stands for. A throw
   * is no answer: nothing recorded.
   */
  private async offlineAnswer<T>(at: OfflineSite, answer: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const out = await traceModel(this.traced("chat", at), answer, () => OFFLINE_ANSWER);
    const latencyMs = Math.round(performance.now() - started);
    await this.record(at, { adapter: OFFLINE_ADAPTER, usage: { ...NO_TOKENS }, latencyMs, attempts: 1 }, null, null);
    return out;
  }

  /** Usage of one run, per state and in total (for the run page). */
  async usage(runId: string) {
    const calls = await this.db.modelCall.findMany({ where: { runId }, orderBy: { createdAt: "asc" } });
    return calls;
  }

  private async replay(req: ModelRequest): Promise<GenerateResult | null> {
    const key = journalKey(req);
    if (!key) return null;
    const row = await this.db.modelCall.findUnique({ where: { key } });
    // an offline answer is never replayed; when a model now answers in its place, its row gives way
    if (row?.adapter === OFFLINE_ADAPTER) {
      if (!this.inner.offline) await this.db.modelCall.deleteMany({ where: { key, adapter: OFFLINE_ADAPTER } }).catch(() => undefined);
      return null;
    }
    if (!row || !row.ok || row.output === null) return null;
    req.onText?.(row.output);
    return {
      text: row.output,
      adapter: row.adapter,
      usage: { promptTokens: row.promptTokens, completionTokens: row.completionTokens, estimated: row.estimated },
      latencyMs: 0,
      citations: [],
      attempts: 0,
      replayed: true,
    };
  }

  private async record(
    req: Pick<ModelRequest, "purpose" | "runId" | "state" | "key">,
    out: Pick<GenerateResult, "adapter" | "usage" | "latencyMs" | "attempts"> | null,
    error: unknown,
    latencyMs: number | null,
    output?: string,
  ): Promise<void> {
    const key = out && req.key ? journalKey(req as ModelRequest) : null;
    const adapter = out?.adapter ?? (isModelError(error) && error.endpoint ? `${this.inner.name} @ ${error.endpoint}` : this.inner.name);
    const [model, endpoint] = adapter.includes(" @ ") ? adapter.split(" @ ") : [null, null];
    const data = {
      id: randomUUID(),
      key,
      runId: req.runId ?? null,
      state: req.state ?? null,
      purpose: req.purpose,
      adapter,
      endpoint,
      model,
      promptTokens: out?.usage.promptTokens ?? 0,
      completionTokens: out?.usage.completionTokens ?? 0,
      estimated: out?.usage.estimated ?? true,
      latencyMs: out?.latencyMs ?? latencyMs ?? 0,
      attempts: out?.attempts ?? (isModelError(error) ? error.attempts : 1),
      ok: !!out,
      errorCategory: isModelError(error) ? error.category : error ? "UNKNOWN" : null,
      error: error ? (error instanceof Error ? error.message : String(error)).slice(0, 2_000) : null,
      output: output ?? null,
      createdAt: new Date(this.clock.now()),
    };
    try {
      if (key) await this.db.modelCall.upsert({ where: { key }, create: data, update: {} });
      else await this.db.modelCall.create({ data });
    } catch {
      // usage records must never fail the call they describe
    }
    this.onCall?.({ runId: data.runId ?? undefined, state: data.state ?? undefined, purpose: data.purpose, adapter, ok: data.ok, promptTokens: data.promptTokens, completionTokens: data.completionTokens, latencyMs: data.latencyMs });
  }
}
