// The web search adapter against a local SearxNG-style server on 127.0.0.1: the query it sends,
// the results it maps, its classified errors, and a deep-research run that searches through it.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ResearchContext } from "../workflows/deep-research/types";
import { SearxngSearch } from "../lib/search/searxng";
import { researchRuntime } from "./helpers";

type Mode = "ok" | "500" | "garbage" | "no-results-key" | "slow" | "empty";
let mode: Mode = "ok";
const queries: string[] = [];
let base = "";
const server = http.createServer((req, res) => {
  const u = new URL(req.url!, "http://x");
  if (u.pathname !== "/search" || u.searchParams.get("format") !== "json") {
    res.writeHead(404).end();
    return;
  }
  const q = u.searchParams.get("q") ?? "";
  queries.push(q);
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

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

let rt: Awaited<ReturnType<typeof researchRuntime>> | null = null;
afterEach(async () => {
  mode = "ok";
  queries.length = 0;
  await rt?.close();
  rt = null;
});

/** A mission on a runtime searching the local server: plan approved at once, no check-ins or reflection rounds. */
async function mission(topic: string) {
  rt = await researchRuntime({ env: { SWITCHYARD_SEARCH_URL: base } as unknown as NodeJS.ProcessEnv });
  const { run } = await rt.engine.start("deep-research", { topic, config: { checkinEvery: 0, maxReflections: 0 } });
  const review = await rt.engine.waitFor(run.id, (r) => r.status !== "running");
  await rt.engine.decide(review.reviewId!, { decision: "approve" });
  return rt.engine.waitFor(run.id, (r) => r.status !== "running");
}

describe("SearxNG web search adapter", () => {
  it("sends the query with format=json and maps results (type by URL, score by rank when missing)", async () => {
    const s = new SearxngSearch(base);
    const out = await s.search("durable timers", { limit: 5 });
    expect(queries).toEqual(["durable timers"]);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ url: "https://durable.example/durable%20timers/timers", title: "Durable timers explained", type: "HTML", score: 2.5, via: "web (searxng)" });
    expect(out[1]).toMatchObject({ type: "PDF", score: 0.5 });
    expect(await s.search("durable timers", { limit: 1 })).toHaveLength(1);
  });

  it("classifies failures: 5xx, malformed JSON, a reply without results, a timeout, an unreachable server", async () => {
    const s = new SearxngSearch(base, 200);
    mode = "500";
    await expect(s.search("x")).rejects.toMatchObject({ category: "LLM", code: "http_500" });
    mode = "garbage";
    await expect(s.search("x")).rejects.toMatchObject({ code: "bad_response", message: "web search returned malformed JSON" });
    mode = "no-results-key";
    await expect(s.search("x")).rejects.toMatchObject({ code: "bad_response" });
    mode = "slow";
    await expect(s.search("x")).rejects.toMatchObject({ code: "timeout", message: expect.stringMatching(/timed out/) });
    await expect(new SearxngSearch("http://127.0.0.1:9/", 500).search("x")).rejects.toMatchObject({ category: "NETWORK" });
  });

  it("deep-research sub-agents search the web when SWITCHYARD_SEARCH_URL is set, and the knowledge store when it fails", async () => {
    const done = await mission("How do durable workflow engines recover from crashes?");
    expect(done.state).toEqual(["COMPLETED"]);
    const c = done.context as ResearchContext;
    expect(queries.length).toBeGreaterThan(3);
    expect(c.sources.some((s) => s.url.startsWith("https://durable.example/") && s.type === "HTML" && s.localPath.endsWith(".html"))).toBe(true);
    expect(c.sources.some((s) => s.url === "https://papers.example/recovery.pdf" && s.type === "PDF")).toBe(true);
    expect(c.facts.some((f) => /re-arms 12 timers|40 ms per run/.test(f.statement))).toBe(true);
    expect(await rt!.store.artifact(done.id, "logs/orchestrator.log")).toMatch(/approach="web \(searxng\): task query"/);
  });

  it("falls back to the knowledge store when the web finds nothing", async () => {
    mode = "empty";
    const done = await mission("How does Switchyard resume runs after a restart?");
    expect(done.state).toEqual(["COMPLETED"]);
    const c = done.context as ResearchContext;
    expect(queries.length).toBeGreaterThan(0);
    expect(c.sources.length).toBeGreaterThan(0);
    expect(c.sources.every((s) => /^(docs\/guide\/|workflows\/[^/]+\/guide\.md$)/.test(s.url))).toBe(true);
  });
});
