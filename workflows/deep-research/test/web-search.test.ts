// deep-research's sub-agents search the web through SWITCHYARD_SEARCH_URL (a local SearxNG-style
// server), and the knowledge store when the web fails or finds nothing.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { searxngServer, type SearxngServer } from "../../../test/support/searxng-server";
import type { ResearchContext } from "../types";
import { researchRuntime } from "./support";

let srv: SearxngServer;
beforeAll(async () => {
  srv = await searxngServer();
});
afterAll(() => srv.close());

let rt: Awaited<ReturnType<typeof researchRuntime>> | null = null;
afterEach(async () => {
  srv.mode = "ok";
  srv.queries.length = 0;
  await rt?.close();
  rt = null;
});

/** A mission on a runtime searching the local server: plan approved at once, no check-ins or reflection rounds. */
async function mission(topic: string) {
  rt = await researchRuntime({ env: { SWITCHYARD_SEARCH_URL: srv.base } as unknown as NodeJS.ProcessEnv });
  const { run } = await rt.engine.start("deep-research", { topic, config: { checkinEvery: 0, maxReflections: 0 } });
  const review = await rt.engine.waitFor(run.id, (r) => r.status !== "running");
  await rt.engine.decide(review.reviewId!, { decision: "approve" });
  return rt.engine.waitFor(run.id, (r) => r.status !== "running");
}

describe("deep-research on the web", () => {
  it("deep-research sub-agents search the web when SWITCHYARD_SEARCH_URL is set, and the knowledge store when it fails", async () => {
    const done = await mission("How do durable workflow engines recover from crashes?");
    expect(done.state).toEqual(["COMPLETED"]);
    const c = done.context as ResearchContext;
    expect(srv.queries.length).toBeGreaterThan(3);
    expect(c.sources.some((s) => s.url.startsWith("https://durable.example/") && s.type === "HTML" && s.localPath.endsWith(".html"))).toBe(true);
    expect(c.sources.some((s) => s.url === "https://papers.example/recovery.pdf" && s.type === "PDF")).toBe(true);
    expect(c.facts.some((f) => /re-arms 12 timers|40 ms per run/.test(f.statement))).toBe(true);
    expect(await rt!.store.artifact(done.id, "logs/orchestrator.log")).toMatch(/approach="web \(searxng\): task query"/);
  });
  it("falls back to the knowledge store when the web finds nothing", async () => {
    srv.mode = "empty";
    const done = await mission("How does Switchyard resume runs after a restart?");
    expect(done.state).toEqual(["COMPLETED"]);
    const c = done.context as ResearchContext;
    expect(srv.queries.length).toBeGreaterThan(0);
    expect(c.sources.length).toBeGreaterThan(0);
    expect(c.sources.every((s) => /^(docs\/guide\/|workflows\/[^/]+\/guide\.md$)/.test(s.url))).toBe(true);
  });
});
