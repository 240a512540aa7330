// The effects steps invoke (lib/steps/compile.ts): a model call through the model port, an HTTP
// call through the webhook egress guard, a program in the sandbox. Each returns
// { output, by, prompt? }; the engine commits it as the step's output. `retry` is done here,
// inside one invocation, so an HTTP call's Idempotency-Key (the invocation key) is the same on
// every attempt and after a restart.
import { z } from "zod";
import type { EffectContext, EffectFn, WorkflowEffects } from "../engine/engine";
import { retryable } from "../engine/effect-error";
import { backoffMs, stepRetry, type RetryPolicy } from "../engine/retry";
import { egressFetch } from "../hooks/egress";
import { runInSandbox, type Language } from "../sandbox";
import { StepError } from "./errors";
import { httpAttempt, sendHeaders } from "./http";
import { outputValidator, sampleFor } from "./json-schema";
import { httpMaxBytes } from "./http-limits";
import { stepRequest } from "./request";

export interface StepPorts {
  fetch?: typeof globalThis.fetch;
  /** a secret by name for http headers (default: env SWITCHYARD_SECRET_<NAME>) */
  secret?: (name: string) => string | undefined;
  /** SWITCHYARD_HTTP_MAX_BYTES and the secrets (default: process.env) */
  env?: NodeJS.ProcessEnv;
  /** the `external` step: a task for a worker outside Switchyard (lib/tasks/effect.ts) */
  external?: EffectFn;
}

const sleep = (ctx: EffectContext, ms: number) =>
  new Promise<void>((resolve, reject) => {
    if (ms <= 0) return resolve();
    const h = ctx.clock.setTimeout(resolve, ms);
    ctx.signal.addEventListener("abort", () => (ctx.clock.clearTimeout(h), reject(new Error("cancelled"))), { once: true });
  });

/**
 * Up to `retry.maxAttempts` attempts (a step's `retry: { max, backoff_s }`, lib/engine/retry.ts),
 * the wait doubling between them; an EffectError that is not retryable ends at once. The result
 * says how many attempts it took (the run page shows it); a last failure after several attempts
 * says so in its message.
 */
async function withRetry<T extends object>(ctx: EffectContext, retry: RetryPolicy, attempt: (n: number) => Promise<T>): Promise<T & { attempts: number }> {
  for (let n = 0; ; n++) {
    try {
      return { ...(await attempt(n)), attempts: n + 1 };
    } catch (e) {
      if (ctx.signal.aborted || n + 1 >= retry.maxAttempts || !retryable(e)) {
        if (n > 0 && e instanceof Error) e.message += ` (after ${n + 1} attempts)`;
        throw e;
      }
      ctx.progress(`attempt ${n + 1} failed (${(e as Error).message}); retrying`);
      await sleep(ctx, backoffMs(retry, n));
    }
  }
}

const LlmInput = z.object({ stage: z.string(), prompt: z.string(), system: z.string().optional(), schema: z.record(z.string(), z.unknown()).optional(), retry: z.object({ max: z.number(), backoff_s: z.number() }).optional() });
const HeaderPart = z.union([z.string(), z.object({ secret: z.string() })]);
const HttpInput = z.object({
  stage: z.string(),
  url: z.string(),
  method: z.string(),
  headers: z.record(z.string(), z.union([z.string(), z.array(HeaderPart)])).default({}),
  body: z.unknown().optional(),
  maxBytes: z.number().int().positive().optional(),
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
  const env = ports.env ?? process.env;
  const http = { fetch: ports.fetch ?? egressFetch, secret: ports.secret ?? ((name: string) => env[`SWITCHYARD_SECRET_${name}`]), maxBytes: httpMaxBytes(env) };
  return {
    actors: reporting({
      ...(ports.external ? { "step.external": ports.external } : {}),
      "step.llm": async (raw: never, ctx: EffectContext) => {
        const input = LlmInput.parse(raw);
        let schema: z.ZodType<unknown> | null = null;
        try {
          // patterns are checked with RE2 (lib/steps/json-schema.ts), never with a backtracking RegExp
          if (input.schema) schema = outputValidator(input.schema);
        } catch (e) {
          throw new StepError(`the step's schema cannot be used: ${(e as Error).message}`, "BUSINESS", false);
        }
        return withRetry(ctx, stepRetry(input.retry), async () => {
          if (input.schema && schema) {
            const out = await ctx.model.generateObject({ purpose: "step", prompt: input.prompt, system: input.system, schema, schemaName: "step_output", offline: () => sampleFor(input.schema!, input.prompt) });
            return { output: out.object, by: out.adapter, prompt: input.prompt };
          }
          const out = await ctx.model.generate({ purpose: "step", prompt: input.prompt, system: input.system, onText: (t) => ctx.progress(t) });
          return { output: out.text, by: out.adapter, prompt: input.prompt };
        });
      },
      "step.http": async (raw: never, ctx: EffectContext) => {
        const input = HttpInput.parse(raw);
        const sent = sendHeaders(input, ctx.key, http.secret);
        return withRetry(ctx, stepRetry(input.retry), (n) => httpAttempt(input, ctx, http, sent, n));
      },
      "step.code": async (raw: never, ctx: EffectContext) => {
        const input = CodeInput.parse(raw);
        return withRetry(ctx, stepRetry(input.retry), async () => {
          const r = await runInSandbox({ language: input.language, code: program(input.language, input.source, input.scope), ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {}) }, { ctx });
          if (!r.ok) throw new StepError(`${input.language} exited ${r.exitCode}: ${r.error?.message ?? r.stderr.slice(0, 500)}`, r.error?.kind === "runtime" ? "BUSINESS" : "RESOURCE_LIMIT", r.error?.kind === "unavailable" || r.error?.kind === "crash");
          return { output: r.returnValue ?? r.stdout, by: r.engine };
        });
      },
    }),
  };
}
