// A local SearxNG-style server on 127.0.0.1 for the web search tests: it records the queries it
// gets and answers per `mode` (two results, none, a 500, malformed JSON, no results key, slowly).
import http from "node:http";
import type { AddressInfo } from "node:net";

export type SearxngMode = "ok" | "500" | "garbage" | "no-results-key" | "slow" | "empty";

export interface SearxngServer {
  /** http://127.0.0.1:<port> */
  base: string;
  mode: SearxngMode;
  queries: string[];
  close(): Promise<void>;
}

export async function searxngServer(): Promise<SearxngServer> {
  const state = { mode: "ok" as SearxngMode, queries: [] as string[] };
  const server = http.createServer((req, res) => {
    const u = new URL(req.url!, "http://x");
    if (u.pathname !== "/search" || u.searchParams.get("format") !== "json") {
      res.writeHead(404).end();
      return;
    }
    const q = u.searchParams.get("q") ?? "";
    state.queries.push(q);
    const mode = state.mode;
    if (mode === "500") return void res.writeHead(500).end("boom");
    if (mode === "garbage") return void res.writeHead(200, { "content-type": "application/json" }).end("{not json");
    if (mode === "no-results-key") return void res.writeHead(200, { "content-type": "application/json" }).end('{"answers":[]}');
    if (mode === "slow") return void setTimeout(() => res.writeHead(200).end('{"results":[]}'), 1_000);
    const results =
      mode === "empty"
        ? []
        : [
            { url: `https://durable.example/${encodeURIComponent(q)}/timers`, title: "Durable timers explained", content: "Durable timers survive a restart because the engine stores each deadline in the database. A resumed engine re-arms 12 timers on start.", engine: "duckduckgo", score: 2.5 },
            { url: "https://papers.example/recovery.pdf", title: "Crash recovery in workflow engines", content: "Workflow engines recover from crashes by replaying a persisted log of transitions. Recovery took 40 ms per run in the benchmark.", engine: "bing" },
          ];
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ query: q, results }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return Object.assign(state, {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}
