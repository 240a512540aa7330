// Traces over OTLP/HTTP, on when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
// is set. This file imports nothing of OpenTelemetry: with the variable unset no SDK module is
// loaded and every helper below calls its function straight through. startTelemetry() loads the
// SDK (./sdk.ts) once per process; the loaded tracer lives on globalThis, because Next.js bundles
// instrumentation.ts and the route handlers apart and each bundle has its own copy of this module.
import { stepTraceparent } from "./ids";

export interface RunInfo {
  runId: string;
  workflow: string;
  /** epoch ms */
  createdAt: number;
  status?: string;
  finishedAt?: number | null;
  error?: { message?: string; category?: string } | null;
  /** the states it starts in / ended in */
  state?: string[];
  replay?: boolean;
}

export interface StepInfo {
  runId: string;
  workflow: string;
  /** the state that invoked the step */
  state: string;
  /** the invocation key (`runId:child:seq`) */
  key: string;
  /** the effect it runs ("step.llm", a built-in's actor name) */
  effect: string;
  again?: "restart";
  /** epoch ms the invoking state was entered (a step started again after a restart began then) */
  enteredAt?: number;
}

export interface ModelCall {
  operation: "chat" | "embeddings";
  /** "openai" for an OpenAI-compatible endpoint, "switchyard.offline" for the offline engine */
  provider: string;
  /** the model asked for (the first endpoint's) */
  model: string;
  runId?: string;
  state?: string;
}

export interface ModelAnswer {
  /** "<model> @ <endpoint>" or the offline engine's name */
  adapter: string;
  inputTokens: number;
  outputTokens: number;
  estimated?: boolean;
}

export interface HttpCall {
  method: string;
  url: string;
  /** 0 for the first attempt */
  resend: number;
}

/** What ./sdk.ts implements. */
export interface Tracing {
  request(req: Request, route: string, fn: () => Promise<Response>): Promise<Response>;
  runStarted(run: RunInfo): void;
  runFinished(run: RunInfo): void;
  step<T>(info: StepInfo, fn: () => Promise<T>, dropped: (e: unknown) => boolean): Promise<T>;
  model<T>(call: ModelCall, fn: () => Promise<T>, answer: (r: T) => ModelAnswer): Promise<T>;
  httpClient(call: HttpCall, fn: (headers: Record<string, string>) => Promise<Response>): Promise<Response>;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

const KEY = Symbol.for("switchyard.telemetry");
type Slot = { tracing?: Tracing; starting?: Promise<Tracing | null> };
const slot = (): Slot => ((globalThis as Record<symbol, Slot>)[KEY] ??= {});
const current = (): Tracing | undefined => slot().tracing;

/** Should traces be exported? The standard OTel variables decide. */
export function telemetryEnabled(env: Record<string, string | undefined> = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === "none") return false;
  return !!(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** Load the SDK and start exporting (once per process); false, loading nothing, when not enabled. The exporter and resource read process.env, as the OTel specification says. */
export async function startTelemetry(env: Record<string, string | undefined> = process.env): Promise<boolean> {
  if (!telemetryEnabled(env)) return false;
  const s = slot();
  s.starting ??= import("./sdk").then(
    (m) => (s.tracing = m.createTracing()),
    (e) => {
      console.error(`[switchyard] OpenTelemetry could not start: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    },
  );
  return (await s.starting) !== null;
}

/** Is a tracer running in this process? */
export const telemetryOn = () => current() !== undefined;

/** Export what has ended so far (a test, a clean stop). */
export async function flushTelemetry(): Promise<void> {
  await current()?.flush();
}

/** Flush and stop; the next startTelemetry() starts again. */
export async function stopTelemetry(): Promise<void> {
  const s = slot();
  const t = s.tracing;
  s.tracing = undefined;
  s.starting = undefined;
  await t?.shutdown();
}

/** "/api/runs/{id}": the path with each route parameter's value put back as its name (a catch-all's segments as one). */
export function routeTemplate(pathname: string, params: Record<string, string | string[]> | undefined): string {
  if (!params) return pathname;
  let segs = pathname.split("/");
  const entries = Object.entries(params).sort(([, a], [, b]) => Number(Array.isArray(b)) - Number(Array.isArray(a)));
  for (const [name, value] of entries) {
    if (Array.isArray(value)) {
      // a catch-all is the route's last segment; "%2F" inside one of its segments counts as a separator
      let n = 1;
      while (n < segs.length - 1 && safeDecode(segs.slice(-n).join("/")) !== value.join("/")) n++;
      if (safeDecode(segs.slice(-n).join("/")) !== value.join("/")) n = Math.min(value.length, segs.length - 1);
      segs = [...segs.slice(0, segs.length - n), `{${name}}`];
      continue;
    }
    const i = segs.findIndex((s, j) => j > 0 && !/^\{.*\}$/.test(s) && safeDecode(s) === value);
    if (i > 0) segs[i] = `{${name}}`;
  }
  return segs.join("/");
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A span for one API request (route: "/api/runs/{id}"), a child of the caller's `traceparent` when it sent one. */
export function traceRequest(req: Request, route: () => string, fn: () => Promise<Response>): Promise<Response> {
  const t = current();
  return t ? t.request(req, route(), fn) : fn();
}

export function traceRunStarted(run: RunInfo): void {
  current()?.runStarted(run);
}

export function traceRunFinished(run: RunInfo): void {
  current()?.runFinished(run);
}

/** The step's span around `fn` (the model calls and http requests it makes are its children); `dropped`: an error that is no outcome (a parked effect), its span is not exported. */
export function traceStep<T>(info: StepInfo, fn: () => Promise<T>, dropped: (e: unknown) => boolean): Promise<T> {
  const t = current();
  return t ? t.step(info, fn, dropped) : fn();
}

/** A GenAI span around one model call. */
export function traceModel<T>(call: ModelCall, fn: () => Promise<T>, answer: (r: T) => ModelAnswer): Promise<T> {
  const t = current();
  return t ? t.model(call, fn, answer) : fn();
}

/** A client span around one HTTP request; `fn` gets the headers that carry its `traceparent`. */
export function traceHttp(call: HttpCall, fn: (headers: Record<string, string>) => Promise<Response>): Promise<Response> {
  const t = current();
  return t ? t.httpClient(call, fn) : fn({});
}

/** What a claim of step invocation `key` carries: its span's `traceparent`, null when traces are off. */
export function claimTraceparent(runId: string, key: string): string | null {
  return current() ? stepTraceparent(runId, key) : null;
}
