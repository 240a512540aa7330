// Server-Sent Events from the run bus: one stream per run, or one for all runs ("*").
import type { BusMessage } from "../engine/bus";
import type { Runtime } from "../runtime-types";
import { runResource } from "./runs";

const HEARTBEAT_MS = 15_000;

function shape(rt: Runtime, msg: BusMessage, all: boolean): unknown {
  if (msg.type !== "run") return msg;
  const run = runResource(msg.run, all ? {} : { accepted: rt.engine.acceptedEvents(msg.run.id) });
  if (!all) return { type: "run", run, transitions: msg.transitions };
  const { context: _context, ...summary } = run;
  return { type: "run", run: summary, transitions: msg.transitions.map(({ payload: _p, ...t }) => t) };
}

export function sseResponse(rt: Runtime, key: string, signal: AbortSignal, hello?: () => Promise<unknown>): Response {
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      const write = (chunk: string) => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(chunk));
        } catch {
          cleanup();
        }
      };
      const unsubscribe = rt.engine.bus.subscribe(key, (msg) => write(`event: ${msg.type}\ndata: ${JSON.stringify(shape(rt, msg, key === "*"))}\n\n`));
      const heartbeat = setInterval(() => write(": ping\n\n"), HEARTBEAT_MS);
      cleanup = () => {
        if (!open) return;
        open = false;
        unsubscribe();
        clearInterval(heartbeat);
        try {
          controller.close();
        } catch {
          // already closed
        }
      };
      signal.addEventListener("abort", () => cleanup());
      write("retry: 1000\n\n");
      if (hello) {
        try {
          write(`event: hello\ndata: ${JSON.stringify(await hello())}\n\n`);
        } catch (e) {
          write(`event: error\ndata: ${JSON.stringify({ error: e instanceof Error ? e.message : String(e) })}\n\n`);
          cleanup();
        }
      }
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
      connection: "keep-alive",
    },
  });
}
