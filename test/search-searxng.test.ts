// The web search adapter against a local SearxNG-style server on 127.0.0.1: the query it sends,
// the results it maps, its classified errors. (deep-research searching through it:
// workflows/deep-research/test/web-search.test.ts.)
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SearxngSearch } from "../lib/search/searxng";
import { searxngServer, type SearxngServer } from "./support/searxng-server";

let srv: SearxngServer;
beforeAll(async () => {
  srv = await searxngServer();
});
afterAll(() => srv.close());
afterEach(() => {
  srv.mode = "ok";
  srv.queries.length = 0;
});

describe("SearxNG web search adapter", () => {
  it("sends the query with format=json and maps results (type by URL, score by rank when missing)", async () => {
    const s = new SearxngSearch(srv.base);
    const out = await s.search("durable timers", { limit: 5 });
    expect(srv.queries).toEqual(["durable timers"]);
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ url: "https://durable.example/durable%20timers/timers", title: "Durable timers explained", type: "HTML", score: 2.5, via: "web (searxng)" });
    expect(out[1]).toMatchObject({ type: "PDF", score: 0.5 });
    expect(await s.search("durable timers", { limit: 1 })).toHaveLength(1);
  });
  it("classifies failures: 5xx, malformed JSON, a reply without results, a timeout, an unreachable server", async () => {
    const s = new SearxngSearch(srv.base, 200);
    srv.mode = "500";
    await expect(s.search("x")).rejects.toMatchObject({ category: "LLM", code: "http_500" });
    srv.mode = "garbage";
    await expect(s.search("x")).rejects.toMatchObject({ code: "bad_response", message: "web search returned malformed JSON" });
    srv.mode = "no-results-key";
    await expect(s.search("x")).rejects.toMatchObject({ code: "bad_response" });
    srv.mode = "slow";
    await expect(s.search("x")).rejects.toMatchObject({ code: "timeout", message: expect.stringMatching(/timed out/) });
    await expect(new SearxngSearch("http://127.0.0.1:9/", 500).search("x")).rejects.toMatchObject({ category: "NETWORK" });
  });
});
