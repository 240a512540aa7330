// The OpenTelemetry side of lib/telemetry, loaded by startTelemetry() only: the official JS SDK
// (NodeTracerProvider, a BatchSpanProcessor, the OTLP/HTTP exporter), configured by the standard
// OTEL_* variables (endpoint, headers, service name, resource attributes, sampler, batch sizes).
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Span, type TextMapGetter } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, NodeTracerProvider, RandomIdGenerator, type IdGenerator } from "@opentelemetry/sdk-trace-node";
import { categoryOf } from "../engine/effect-error";
import { runSpanIdOf, stepSpanIdOf, traceIdOf } from "./ids";
import type { HttpCall, ModelAnswer, ModelCall, RunInfo, StepInfo, Tracing } from "./index";

/** Random ids, except for the spans whose ids are derived from the run (./ids.ts): those are set for one startSpan call. */
class Ids implements IdGenerator {
  private random = new RandomIdGenerator();
  next: { traceId?: string; spanId?: string } | null = null;
  generateTraceId = () => this.next?.traceId ?? this.random.generateTraceId();
  generateSpanId = () => this.next?.spanId ?? this.random.generateSpanId();
}

const headerGetter: TextMapGetter<Headers> = {
  get: (h, k) => h.get(k) ?? undefined,
  keys: (h) => [...h.keys()],
};

/** The run's own span as a parent (it is exported when the run ends, by whichever process ends it). */
function runContext(runId: string): Context {
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: traceIdOf(runId), spanId: runSpanIdOf(runId), traceFlags: TraceFlags.SAMPLED, isRemote: true });
}

function failed(span: Span, e: unknown, type?: string) {
  const err = e instanceof Error ? e : new Error(String(e));
  span.recordException(err);
  span.setAttribute("error.type", type ?? categoryOf(e) ?? (err.name || "Error"));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err.message.slice(0, 500) });
}

/** A URL without its user and password (url.full must not carry credentials). */
function safeUrl(url: string): URL | null {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u;
  } catch {
    return null;
  }
}

const numberOf = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

export function createTracing(): Tracing {
  const ids = new Ids();
  const resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": "switchyard" }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, idGenerator: ids, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  // the global provider, AsyncLocalStorage context and W3C propagator (Next.js's own spans use them too)
  provider.register();
  const tracer = provider.getTracer("switchyard");

  const startWithIds = (fixed: { traceId?: string; spanId?: string }, start: () => Span): Span => {
    ids.next = fixed;
    try {
      return start();
    } finally {
      ids.next = null;
    }
  };

  return {
    async request(req, route, fn) {
      const active = context.active();
      const inside = trace.getSpan(active) !== undefined;
      // the caller's trace (its traceparent header), unless a server span (Next.js's) is already active
      const parent = inside ? active : propagation.extract(active, req.headers, headerGetter);
      const url = new URL(req.url);
      const attributes: Attributes = { "http.request.method": req.method, "http.route": route, "url.path": url.pathname, "url.scheme": url.protocol.replace(":", "") };
      const ua = req.headers.get("user-agent");
      if (ua) attributes["user_agent.original"] = ua;
      if (route.startsWith("/api/runs/{id}")) attributes["switchyard.run_id"] = decodeURIComponent(url.pathname.split("/")[3] ?? "");
      const span = tracer.startSpan(`${req.method} ${route}`, { kind: inside ? SpanKind.INTERNAL : SpanKind.SERVER, attributes }, parent);
      try {
        const res = await context.with(trace.setSpan(parent, span), fn);
        span.setAttribute("http.response.status_code", res.status);
        if (res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${res.status}` });
        return res;
      } catch (e) {
        failed(span, e);
        throw e;
      } finally {
        span.end();
      }
    },

    runStarted(run: RunInfo) {
      const requestSpan = trace.getSpan(context.active());
      if (requestSpan?.isRecording()) requestSpan.setAttribute("switchyard.run_id", run.runId);
      const span = tracer.startSpan(
        `start ${run.workflow}`,
        {
          attributes: { "switchyard.run_id": run.runId, "switchyard.workflow": run.workflow, "switchyard.state": (run.state ?? []).join(","), ...(run.replay ? { "switchyard.replay": true } : {}) },
          // the request that started it, in its own trace
          links: requestSpan ? [{ context: requestSpan.spanContext() }] : [],
          startTime: run.createdAt,
        },
        runContext(run.runId),
      );
      span.end();
    },

    runFinished(run: RunInfo) {
      const attributes: Attributes = {
        "switchyard.run_id": run.runId,
        "switchyard.workflow": run.workflow,
        "switchyard.run.status": run.status ?? "",
        "switchyard.outcome": run.status ?? "",
        "switchyard.state": (run.state ?? []).join(","),
      };
      if (run.replay) attributes["switchyard.replay"] = true;
      const span = startWithIds({ traceId: traceIdOf(run.runId), spanId: runSpanIdOf(run.runId) }, () =>
        tracer.startSpan(`run ${run.workflow}`, { root: true, attributes, startTime: run.createdAt }, ROOT_CONTEXT),
      );
      if (run.status === "failed") {
        span.setAttribute("error.type", run.error?.category ?? "failed");
        span.setStatus({ code: SpanStatusCode.ERROR, message: run.error?.message?.slice(0, 500) ?? "the run failed" });
      }
      span.end(Math.max(run.finishedAt ?? Date.now(), run.createdAt));
    },

    async step<T>(info: StepInfo, fn: () => Promise<T>, dropped: (e: unknown) => boolean): Promise<T> {
      const parent = runContext(info.runId);
      const attributes: Attributes = {
        "switchyard.run_id": info.runId,
        "switchyard.workflow": info.workflow,
        "switchyard.state": info.state,
        "switchyard.invocation_key": info.key,
        "switchyard.effect": info.effect,
      };
      if (info.again) attributes["switchyard.again"] = info.again;
      const startTime = info.enteredAt !== undefined && info.enteredAt <= Date.now() ? info.enteredAt : undefined;
      // the same span id wherever and however often the invocation runs: a step started again after
      // a restart, or after waiting outside the process (a parked external task), is one span
      const span = startWithIds({ spanId: stepSpanIdOf(info.key) }, () => tracer.startSpan(`step ${info.state}`, { attributes, startTime }, parent));
      try {
        const out = await context.with(trace.setSpan(parent, span), fn);
        const o = (out ?? {}) as { attempts?: unknown; again?: unknown };
        span.setAttributes({ "switchyard.attempt": numberOf(o.attempts) ?? 1, "switchyard.outcome": "done" });
        if (typeof o.again === "string") span.setAttribute("switchyard.again", o.again);
        span.end();
        return out;
      } catch (e) {
        // no outcome yet (parked): not ended, so never exported; its next run ends it
        if (dropped(e)) throw e;
        span.setAttributes({ "switchyard.attempt": numberOf((e as { attempts?: unknown })?.attempts) ?? 1, "switchyard.outcome": "error" });
        failed(span, e);
        span.end();
        throw e;
      }
    },

    async model<T>(call: ModelCall, fn: () => Promise<T>, answer: (r: T) => ModelAnswer): Promise<T> {
      const attributes: Attributes = {
        "gen_ai.operation.name": call.operation,
        "gen_ai.provider.name": call.provider,
        "gen_ai.system": call.provider,
        "gen_ai.request.model": call.model,
      };
      if (call.runId) attributes["switchyard.run_id"] = call.runId;
      if (call.state) attributes["switchyard.state"] = call.state;
      const span = tracer.startSpan(`${call.operation} ${call.model}`, { kind: SpanKind.CLIENT, attributes });
      try {
        const out = await context.with(trace.setSpan(context.active(), span), fn);
        const a = answer(out);
        const [model, endpoint] = a.adapter.includes(" @ ") ? a.adapter.split(" @ ") : [a.adapter, undefined];
        span.setAttributes({ "gen_ai.response.model": model!, "gen_ai.usage.input_tokens": a.inputTokens, "gen_ai.usage.output_tokens": a.outputTokens });
        if (endpoint) span.setAttribute("switchyard.llm.endpoint", endpoint);
        if (a.estimated) span.setAttribute("switchyard.llm.usage_estimated", true);
        return out;
      } catch (e) {
        failed(span, e);
        throw e;
      } finally {
        span.end();
      }
    },

    async httpClient(call: HttpCall, fn: (headers: Record<string, string>) => Promise<Response>): Promise<Response> {
      const u = safeUrl(call.url);
      const attributes: Attributes = { "http.request.method": call.method };
      if (u) {
        attributes["url.full"] = u.toString();
        attributes["server.address"] = u.hostname;
        attributes["server.port"] = Number(u.port) || (u.protocol === "https:" ? 443 : 80);
      }
      if (call.resend > 0) attributes["http.request.resend_count"] = call.resend;
      const span = tracer.startSpan(call.method, { kind: SpanKind.CLIENT, attributes });
      const ctx = trace.setSpan(context.active(), span);
      const headers: Record<string, string> = {};
      propagation.inject(ctx, headers);
      try {
        const res = await context.with(ctx, () => fn(headers));
        span.setAttribute("http.response.status_code", res.status);
        if (res.status >= 400) span.setAttributes({ "error.type": String(res.status) }), span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${res.status}` });
        return res;
      } catch (e) {
        failed(span, e, (e as { code?: string })?.code ?? undefined);
        throw e;
      } finally {
        span.end();
      }
    },

    flush: () => provider.forceFlush(),

    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
