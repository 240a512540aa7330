// ELK off the request thread. ELK is synchronous inside: a pathological definition (30 stages,
// 1,000 transitions) keeps it busy for seconds, and on the server's own thread that stalls every
// request. Here it runs in a worker thread of its own; each graph of a batch gets a deadline (2 s
// by default), and when the deadline comes first the thread is terminated (which stops ELK
// wherever it is) and that graph and the rest of the batch get the simple fallback layout.
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { ElkNode } from "elkjs/lib/elk-api";
import { elkGraphOf, fallbackLayout, layoutFrom, type Layout, type LayoutOptions } from "./layout";
import type { WorkflowGraph } from "./derive";

/**
 * How long ELK may take for one batch of layouts before the fallback is drawn: 2 s, or
 * `SWITCHYARD_LAYOUT_DEADLINE_MS` (100 – 120,000; a slow or shared machine may want more).
 */
export const LAYOUT_DEADLINE_MS = deadlineFrom(process.env.SWITCHYARD_LAYOUT_DEADLINE_MS);

export function deadlineFrom(value: string | undefined): number {
  const n = Number(value);
  return value && Number.isInteger(n) && n >= 100 && n <= 120_000 ? n : 2_000;
}

const THREAD = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
const ELK = require(workerData.elk);
const elk = new ELK();
parentPort.on("message", (m) => {
  elk.layout(m.graph).then(
    (out) => parentPort.postMessage({ id: m.id, out }),
    (e) => parentPort.postMessage({ id: m.id, error: String((e && e.message) || e) }),
  );
});`;

/** Where elkjs lives, for the thread's require (bundled servers included). */
function elkPath(): string {
  try {
    return createRequire(path.join(process.cwd(), "package.json")).resolve("elkjs/lib/elk.bundled.js");
  } catch {
    return "elkjs/lib/elk.bundled.js";
  }
}

export interface LayoutEvent {
  kind: "started" | "done" | "deadline" | "error";
  /** graphs laid out by ELK / drawn by the fallback */
  laidOut: number;
  fallback: number;
  message?: string;
}

export interface ThreadOptions {
  /** resolves when the batch's time is up (default: LAYOUT_DEADLINE_MS after it starts) */
  deadline?: () => Promise<void>;
  /** told when a batch starts and how it ended (tests and logs) */
  onEvent?: (e: LayoutEvent) => void;
}

let worker: Worker | null = null;
let nextId = 0;
const pending = new Map<number, (r: { out?: ElkNode; error?: string }) => void>();

function thread(): Worker {
  if (worker) return worker;
  const w = new Worker(THREAD, { eval: true, workerData: { elk: elkPath() } });
  w.unref();
  w.on("message", (m: { id: number; out?: ElkNode; error?: string }) => {
    pending.get(m.id)?.(m);
    pending.delete(m.id);
  });
  const gone = (e?: unknown) => {
    if (worker === w) worker = null;
    for (const [id, r] of pending) {
      r({ error: e ? String(e) : "layout thread stopped" });
      pending.delete(id);
    }
  };
  w.on("error", gone);
  w.on("exit", () => gone());
  worker = w;
  return w;
}

function send(graph: ElkNode): Promise<{ out?: ElkNode; error?: string }> {
  const id = ++nextId;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    thread().postMessage({ id, graph });
  });
}

// one batch at a time: its deadline counts from when it starts, not from when it was asked for
let queue: Promise<unknown> = Promise.resolve();

/**
 * Lays `graph` out once per variant in the layout thread; the variants ELK has not finished when
 * the deadline comes are drawn by the fallback layout (and the thread is replaced).
 */
export function layoutOffThread(graph: WorkflowGraph, variants: LayoutOptions[], opts: ThreadOptions = {}): Promise<Layout[]> {
  const run = async (): Promise<Layout[]> => {
    const jobs = variants.map((v) => elkGraphOf(graph, v));
    const out: (Layout | null)[] = jobs.map(() => null);
    let late = false;
    let failed = "";
    opts.onEvent?.({ kind: "started", laidOut: 0, fallback: 0 });
    // each layout of the batch gets the deadline; once one misses it the rest are not tried
    for (let i = 0; i < jobs.length && !late; i++) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = (opts.deadline ? opts.deadline() : new Promise<void>((r) => (timer = setTimeout(r, LAYOUT_DEADLINE_MS)))).then(() => {
        late = true;
      });
      const r = await Promise.race([send(jobs[i].root), deadline.then(() => null)]);
      if (timer) clearTimeout(timer);
      if (!r) break;
      if (r.out) out[i] = layoutFrom(r.out, jobs[i]);
      else failed = r.error ?? "layout failed";
    }
    if (late && out.some((l) => !l)) {
      // ELK is still busy: stop it where it is
      const w = worker;
      worker = null;
      await w?.terminate();
    }
    const laidOut = out.filter(Boolean).length;
    const result = out.map((l, i) => l ?? fallbackLayout(jobs[i]));
    opts.onEvent?.({ kind: late && laidOut < jobs.length ? "deadline" : failed ? "error" : "done", laidOut, fallback: jobs.length - laidOut, message: failed || undefined });
    return result;
  };
  const p = queue.then(run, run);
  queue = p.catch(() => undefined);
  return p;
}

/** Stops the layout thread (tests; a server shutting down). */
export async function stopLayoutThread(): Promise<void> {
  const w = worker;
  worker = null;
  await w?.terminate();
}
