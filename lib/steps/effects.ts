// The effects steps invoke (lib/steps/compile.ts): a model call through the model port, an HTTP
// call through the webhook egress guard, a program in the sandbox. Each returns
// { output, by, prompt? }; the engine commits it as the step's output. `retry` is done here,
// inside one invocation, so an HTTP call's Idempotency-Key (the invocation key) is the same on
// every attempt and after a restart.
import { z } from "zod";
import type { EffectContext, EffectFn, WorkflowEffects } from "../engine/engine";
import { egressFetch } from "../hooks/egress";
import type { ModelPort } from "../llm/types";
import { runInSandbox, type Language } from "../sandbox";
import { renderSecrets } from "./template";
import { stepRequest } from "./request";

export interface StepPorts {
  model: () => ModelPort;
  fetch?: typeof globalThis.fetch;
  /** a secret by name for http headers (default: env SWITCHYARD_SECRET_<NAME>) */
  secret?: (name: string) => string | undefined;
  /** the `external` step: a task for a worker outside Switchyard (lib/tasks/effect.ts) */
  external?: EffectFn;
}

type Retry = { max: number; backoff_s: number };

class StepError extends Error {
  constructor(
    message: string,
    readonly category: "NETWORK" | "BUSINESS" | "LLM" | "RESOURCE_LIMIT",
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = "StepError";
  }
}

const sleep = (ctx: EffectContext, ms: number) =>
  new Promise<void>((resolve, reject) => {
    if (ms <= 0) return resolve();
    const h = ctx.clock.setTimeout(resolve, ms);
    ctx.signal.addEventListener("abort", () => (ctx.clock.clearTimeout(h), reject(new Error("cancelled"))), { once: true });
  });

/**
 * Attempts 1 + retry.max, `backoff_s` doubling between them; errors marked not retryable end at
 * once. The result says how many attempts it took (the run page shows it); a last failure after
 * several attempts says so in its message.
 */
async function withRetry<T extends object>(ctx: EffectContext, retry: Retry | undefined, attempt: (n: number) => Promise<T>): Promise<T & { attempts: number }> {
  const max = retry?.max ?? 0;
  for (let n = 0; ; n++) {
    try {
      return { ...(await attempt(n)), attempts: n + 1 };
    } catch (e) {
      if (ctx.signal.aborted || n >= max || (e as { retryable?: boolean }).retryable === false) {
        if (n > 0 && e instanceof Error) e.message += ` (after ${n + 1} attempts)`;
        throw e;
      }
      ctx.progress(`attempt ${n + 1} failed (${(e as Error).message}); retrying`);
      await sleep(ctx, (retry?.backoff_s ?? 0) * 1000 * 2 ** n);
    }
  }
}

/** A deterministic object for a JSON Schema (the offline engine's answer to a structured llm step). */
export function sampleFor(schema: Record<string, unknown>, text: string): unknown {
  const s = schema as { type?: unknown; properties?: Record<string, Record<string, unknown>>; enum?: unknown[]; default?: unknown; items?: Record<string, unknown>; minItems?: number };
  if (s.default !== undefined) return s.default;
  if (s.enum?.length) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === "object" || s.properties) return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, sampleFor(v, text)]));
  if (type === "array") return Array.from({ length: s.minItems ?? 0 }, () => sampleFor(s.items ?? {}, text));
  if (type === "number" || type === "integer") return typeof (s as { minimum?: number }).minimum === "number" ? (s as { minimum: number }).minimum : 0;
  if (type === "boolean") return false;
  if (type === "null") return null;
  return text;
}

const LlmInput = z.object({ stage: z.string(), prompt: z.string(), system: z.string().optional(), schema: z.record(z.string(), z.unknown()).optional(), retry: z.object({ max: z.number(), backoff_s: z.number() }).optional() });
const HttpInput = z.object({
  stage: z.string(),
  url: z.string(),
  method: z.string(),
  headers: z.record(z.string(), z.string()).default({}),
  body: z.unknown().optional(),
  retry: z.object({ max: z.number(), backoff_s: z.number() }).optional(),
});
const CodeInput = z.object({ stage: z.string(), language: z.enum(["javascript", "python"]), source: z.string(), scope: z.record(z.string(), z.unknown()), timeoutMs: z.number().optional(), retry: z.object({ max: z.number(), backoff_s: z.number() }).optional() });

/** `input`, `steps` and `review` as variables of the program, then the program. */
function program(language: Language, source: string, scope: Record<string, unknown>): string {
  const json = JSON.stringify(JSON.stringify(scope));
  if (language === "javascript") return `const { input, steps, review } = JSON.parse(${json});\n${source}`;
  return `import json as __json\n__scope = __json.loads(${json})\ninput, steps, review = __scope["input"], __scope["steps"], __scope["review"]\ndel __scope\n${source}`;
}

/**
 * Each step effect reports what it sent (lib/steps/request.ts) with its result, and on its error:
 * the run keeps it as context.steps.<STAGE>.request. `ctx.again` (the process restarted while the
 * step was in flight) is reported too; an external task says itself when a lease ran out.
 */
function reporting(actors: Record<string, EffectFn>): Record<string, EffectFn> {
  return Object.fromEntries(
    Object.entries(actors).map(([src, fn]) => {
      const wrapped = async (raw: never, ctx: EffectContext) => {
        const request = stepRequest(src, raw, ctx.key);
        const again = src !== "step.external" && ctx.again ? { again: ctx.again } : {};
        try {
          const out = (await fn(raw, ctx)) as Record<string, unknown>;
          return { ...out, ...(request ? { request } : {}), ...again };
        } catch (e) {
          if (e && typeof e === "object" && !Object.isFrozen(e)) Object.assign(e, request ? { request } : {}, again);
          throw e;
        }
      };
      // keep the marks the engine reads on the effect (an external task waits outside the process)
      for (const sym of Object.getOwnPropertySymbols(fn)) (wrapped as unknown as Record<symbol, unknown>)[sym] = (fn as unknown as Record<symbol, unknown>)[sym];
      return [src, wrapped as EffectFn];
    }),
  );
}

export function stepEffects(ports: StepPorts): WorkflowEffects {
  const fetch = ports.fetch ?? egressFetch;
  const secret = ports.secret ?? ((name: string) => process.env[`SWITCHYARD_SECRET_${name}`]);
  return {
    actors: reporting({
      ...(ports.external ? { "step.external": ports.external } : {}),
      "step.llm": async (raw: never, ctx: EffectContext) => {
        const input = LlmInput.parse(raw);
        const where = { runId: ctx.runId, state: ctx.state, key: ctx.key, signal: ctx.signal };
        return withRetry(ctx, input.retry, async () => {
          const model = ports.model();
          if (input.schema) {
            const schema = z.fromJSONSchema(input.schema as never) as z.ZodType<unknown>;
            const out = await model.generateObject({ purpose: "step", prompt: input.prompt, system: input.system, schema, schemaName: "step_output", offline: () => sampleFor(input.schema!, input.prompt), ...where });
            return { output: out.object, by: out.adapter, prompt: input.prompt };
          }
          const out = await model.generate({ purpose: "step", prompt: input.prompt, system: input.system, onText: (t) => ctx.progress(t), ...where });
          return { output: out.text, by: out.adapter, prompt: input.prompt };
        });
      },
      "step.http": async (raw: never, ctx: EffectContext) => {
        const input = HttpInput.parse(raw);
        const headers: Record<string, string> = { "idempotency-key": ctx.key };
        for (const [k, v] of Object.entries(input.headers)) headers[k.toLowerCase()] = renderSecrets(v, secret);
        const hasBody = input.body !== undefined && input.method !== "GET";
        if (hasBody) headers["content-type"] ??= "application/json";
        return withRetry(ctx, input.retry, async () => {
          let res: Response;
          try {
            res = await fetch(input.url, { method: input.method, headers, body: hasBody ? JSON.stringify(input.body) : undefined, signal: ctx.signal, redirect: "manual" });
          } catch (e) {
            const blocked = (e as { code?: string }).code === "EBLOCKED";
            throw new StepError(`${input.method} ${input.url}: ${(e as Error).message}`, blocked ? "BUSINESS" : "NETWORK", !blocked);
          }
          const text = await res.text();
          if (!res.ok) {
            const retryable = res.status >= 500 || res.status === 429 || res.status === 408;
            throw new StepError(`${input.method} ${input.url} answered ${res.status}${text ? `: ${text.slice(0, 300)}` : ""}`, retryable ? "NETWORK" : "BUSINESS", retryable);
          }
          let output: unknown = text;
          if ((res.headers.get("content-type") ?? "").includes("json") && text) {
            try {
              output = JSON.parse(text);
            } catch {
              throw new StepError(`${input.method} ${input.url}: the reply says JSON but is not`, "BUSINESS", false);
            }
          }
          return { output, by: `http ${res.status}` };
        });
      },
      "step.code": async (raw: never, ctx: EffectContext) => {
        const input = CodeInput.parse(raw);
        return withRetry(ctx, input.retry, async () => {
          const r = await runInSandbox({ language: input.language, code: program(input.language, input.source, input.scope), ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {}) });
          if (!r.ok) throw new StepError(`${input.language} exited ${r.exitCode}: ${r.error?.message ?? r.stderr.slice(0, 500)}`, r.error?.kind === "runtime" ? "BUSINESS" : "RESOURCE_LIMIT", r.error?.kind === "unavailable" || r.error?.kind === "crash");
          return { output: r.returnValue ?? r.stdout, by: r.engine };
        });
      },
    }),
  };
}
