// bench:waiting's view of a production server from the outside: start `npm start`
// (scripts/start.mjs: migrations, then `next start`) on a SQLite file, wait for /api/health,
// read the server process's RSS from /proc, ask its V8 for a full garbage collection through the
// inspector (opened with SIGUSR1 on a port given by --inspect-port, nothing added to the app),
// follow Server-Sent Events, stop it. Linux only (/proc). Everything throws when it cannot measure.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { WebSocket } from "undici";

export interface Server {
  port: number;
  proc: ChildProcess;
  /** the process running `next start` (its RSS is the server's) */
  pid: number;
  log: string;
  /** spawn → first healthy answer */
  healthyMs: number;
  health(): Promise<Health>;
  stop(): Promise<void>;
}

export interface Health {
  status: string;
  engine?: { liveRuns?: number };
  runs?: Record<string, number>;
}

/** env for the server: this one's, minus anything that would reach a real model or turn accounts on */
function serverEnv(port: number, dbFile: string, inspectPort: number, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (/^(OPENAI_|SWITCHYARD_)/.test(k) || k === "NODE_OPTIONS") delete env[k];
  return {
    ...env,
    PORT: String(port),
    HOSTNAME: "127.0.0.1",
    DATABASE_URL: `file:${dbFile}`,
    NEXT_TELEMETRY_DISABLED: "1",
    // the port SIGUSR1 opens the inspector on (only the process we signal opens it)
    NODE_OPTIONS: `--inspect-port=127.0.0.1:${inspectPort}`,
    ...extra,
  };
}

export async function startServer(o: { port: number; inspectPort: number; dbFile: string; log: string; env?: Record<string, string>; timeoutMs: number }): Promise<Server> {
  const out = fs.openSync(o.log, "a");
  const started = performance.now();
  const proc = spawn(process.execPath, ["scripts/start.mjs"], { env: serverEnv(o.port, o.dbFile, o.inspectPort, o.env ?? {}), stdio: ["ignore", out, out], detached: true });
  fs.closeSync(out);
  let exited: string | null = null;
  proc.once("exit", (code, signal) => (exited = `exited with ${code ?? signal}`));
  const health = async (): Promise<Health> => {
    if (exited) throw new Error(`server ${exited} (log: ${o.log})`);
    return getJson<Health>(`http://127.0.0.1:${o.port}/api/health`);
  };
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const gone = new Promise((r) => proc.once("exit", r));
    process.kill(-proc.pid!, "SIGTERM");
    const t = setTimeout(() => {
      try {
        process.kill(-proc.pid!, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }, 60_000);
    await gone;
    clearTimeout(t);
  };
  try {
    for (;;) {
      if (exited) throw new Error(`server ${exited} before it was healthy (log: ${o.log})`);
      if (performance.now() - started > o.timeoutMs) throw new Error(`server not healthy within ${Math.round(o.timeoutMs / 1000)} s (log: ${o.log})`);
      const h = await fetch(`http://127.0.0.1:${o.port}/api/health`, { signal: AbortSignal.timeout(5_000) }).then(
        async (r) => (r.ok ? ((await r.json()) as Health) : null),
        () => null,
      );
      if (h?.status === "ok") break;
      await sleep(25);
    }
    const healthyMs = performance.now() - started;
    const pid = nextServerPid(proc.pid!);
    return { port: o.port, proc, pid, log: o.log, healthyMs, health, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** the descendant of `root` running `next start` */
function nextServerPid(root: number): number {
  const children = new Map<number, number[]>();
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone meanwhile
    }
  }
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      // `next start` names itself "next-server (vX)" once it runs
      if (cmd[0]?.startsWith("next-server") || (cmd.some((a) => a.endsWith("next/dist/bin/next")) && cmd.includes("start"))) return pid;
    } catch {
      // gone meanwhile
    }
    queue.push(...(children.get(pid) ?? []));
  }
  throw new Error(`no 'next start' process under pid ${root}`);
}

/** resident set size of one process, in bytes */
export function rssBytes(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) * 1024;
}

/** A DevTools-protocol session on the server's V8 (SIGUSR1 opens the inspector on --inspect-port). */
export class Inspector {
  private ws: WebSocket | null = null;
  private next = 1;
  private pending = new Map<number, (msg: { result?: unknown; error?: { message: string } }) => void>();

  constructor(
    private pid: number,
    private port: number,
  ) {}

  private async open(): Promise<WebSocket> {
    if (this.ws) return this.ws;
    process.kill(this.pid, "SIGUSR1");
    let url: string | null = null;
    for (let i = 0; i < 100 && !url; i++) {
      const list = await fetch(`http://127.0.0.1:${this.port}/json/list`).then(
        (r) => r.json() as Promise<{ webSocketDebuggerUrl?: string }[]>,
        () => null,
      );
      url = list?.[0]?.webSocketDebuggerUrl ?? null;
      if (!url) await sleep(100);
    }
    if (!url) throw new Error(`the server's inspector did not open on port ${this.port}`);
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener("open", () => resolve(), { once: true });
      ws.addEventListener("error", () => reject(new Error("inspector websocket failed")), { once: true });
    });
    ws.addEventListener("message", (ev) => {
      const msg = JSON.parse(String(ev.data)) as { id?: number; result?: unknown; error?: { message: string } };
      if (msg.id !== undefined) this.pending.get(msg.id)?.(msg);
    });
    this.ws = ws;
    return ws;
  }

  async call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const ws = await this.open();
    const id = this.next++;
    const answer = new Promise<{ result?: unknown; error?: { message: string } }>((r) => this.pending.set(id, r));
    ws.send(JSON.stringify({ id, method, params }));
    const msg = await answer;
    this.pending.delete(id);
    if (msg.error) throw new Error(`${method}: ${msg.error.message}`);
    return msg.result as T;
  }

  /** a full collection, twice (the second frees what the first's finalizers let go) */
  async gc(): Promise<void> {
    await this.call("HeapProfiler.collectGarbage");
    await this.call("HeapProfiler.collectGarbage");
  }

  async heapUsed(): Promise<number> {
    return (await this.call<{ usedSize: number }>("Runtime.getHeapUsage")).usedSize;
  }

  close() {
    this.ws?.close();
    this.ws = null;
  }
}

export interface SseEvent {
  event: string;
  data: string;
}

/** Open an SSE stream; `onEvent` sees every event. Resolves once the response headers are in. */
export async function openSse(url: string, onEvent: (e: SseEvent, at: number) => void): Promise<{ close: () => void }> {
  const ctl = new AbortController();
  const res = await fetch(url, { signal: ctl.signal, headers: { accept: "text/event-stream" } });
  if (!res.ok || !res.body) throw new Error(`${url} answered ${res.status}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const at = performance.now();
        buf += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          let event = "message";
          const data: string[] = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("event:")) event = line.slice(6).trim();
            else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
          }
          if (data.length) onEvent({ event, data: data.join("\n") }, at);
        }
      }
    } catch {
      // closed
    }
  })();
  return { close: () => ctl.abort() };
}

/** fetch, tried again (up to 4 times) when the connection fails; POSTs carry an Idempotency-Key, so a retry does nothing twice */
async function request(url: string, init: RequestInit = {}): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, { ...init, signal: AbortSignal.timeout(120_000) });
    } catch (e) {
      if (attempt >= 4) throw new Error(`${init.method ?? "GET"} ${url} failed ${attempt} times: ${describe(e)}`);
      await sleep(200 * attempt);
    }
  }
}

/** an error with its cause (undici's "fetch failed" says nothing without it) */
export function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  return e.cause ? `${e.message} (${describe(e.cause)})` : e.message;
}

export async function postJson<T>(url: string, body: unknown): Promise<T> {
  const res = await request(url, { method: "POST", headers: { "content-type": "application/json", "idempotency-key": randomUUID() }, body: JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

export async function getJson<T>(url: string): Promise<T> {
  const res = await request(url);
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}
