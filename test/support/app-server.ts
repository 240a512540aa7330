// A real HTTP server in the test process, in front of the app's API route handlers
// (app/api/**/route.ts, called as Next.js calls them: a Web Request in, a Response out, streamed
// back) on a given runtime. Clients in other processes (the Python module) and fetch-based ones
// (@switchyard/client) talk to it over TCP, as to `npm start`. Pages are not served.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { Runtime } from "../../lib/runtime";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;
interface Route {
  file: string;
  pattern: RegExp;
  /** static segments score higher: /api/runs/import before /api/runs/[id] */
  rank: number[];
}

const ROOT = path.resolve(import.meta.dirname, "../..");
const KEY = Symbol.for("switchyard.runtime");

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? routeFiles(path.join(dir, e.name)) : e.name === "route.ts" ? [path.join(dir, e.name)] : []));
}

function routes(): Route[] {
  const out = routeFiles(path.join(ROOT, "app/api")).map((file) => {
    const segments = path.relative(path.join(ROOT, "app"), path.dirname(file)).split(path.sep);
    const parts = segments.map((s) => (s.startsWith("[...") ? `(?<${s.slice(4, -1)}>.+)` : s.startsWith("[") ? `(?<${s.slice(1, -1)}>[^/]+)` : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
    return { file, pattern: new RegExp(`^/${parts.join("/")}$`), rank: segments.map((s) => (s.startsWith("[...") ? 0 : s.startsWith("[") ? 1 : 2)) };
  });
  const cmp = (a: number[], b: number[]) => {
    for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? -1) !== (b[i] ?? -1)) return (b[i] ?? -1) - (a[i] ?? -1);
    return 0;
  };
  return out.sort((a, b) => cmp(a.rank, b.rank));
}

export interface AppServer {
  url: string;
  close(): Promise<void>;
}

/** Serve the API of `rt` on 127.0.0.1 (a free port); `rt` becomes the process's runtime (getRuntime()). */
export async function serveApp(rt: Runtime): Promise<AppServer> {
  (globalThis as Record<symbol, unknown>)[KEY] = Promise.resolve(rt);
  const table = routes();
  const sockets = new Set<import("node:net").Socket>();
  const server = http.createServer(async (req, res) => {
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    try {
      const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`);
      const route = table.find((r) => r.pattern.test(url.pathname));
      if (!route) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: `no route ${url.pathname}`, code: "not_found" }));
        return;
      }
      const mod = (await import(route.file)) as Record<string, Handler>;
      const fn = mod[req.method ?? "GET"];
      if (!fn) {
        res.writeHead(405).end();
        return;
      }
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
      const hasBody = !["GET", "HEAD"].includes(req.method ?? "GET") && chunks.length > 0;
      const request = new Request(url, { method: req.method, headers, body: hasBody ? Buffer.concat(chunks) : undefined, signal: abort.signal });
      const groups = { ...route.pattern.exec(url.pathname)!.groups };
      const params = Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, route.file.includes(`[...${k}]`) ? v!.split("/") : v!]));
      const answer = await fn(request, { params: Promise.resolve(params) });
      res.writeHead(answer.status, Object.fromEntries(answer.headers));
      if (!answer.body) return void res.end();
      const reader = answer.body.getReader();
      abort.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        res.write(value);
      }
      res.end();
    } catch (e) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: `test server: ${(e as Error).message}`, code: "internal" }));
    }
  });
  server.on("connection", (s) => (sockets.add(s), s.on("close", () => sockets.delete(s))));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
