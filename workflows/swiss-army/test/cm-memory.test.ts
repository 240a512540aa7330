// The Context Manager keeps nothing in memory per stored result: its search index is in
// the database (FTS5 on SQLite), and a hit's title, snippet, confidence and decision are read
// from the rows of the best candidates. Search results look as they did with an in-memory index.
import { afterEach, describe, expect, it } from "vitest";
import { SEARCHED_RESULTS, prepareCmText } from "../context-manager/cm-text";
import { ContextManager } from "../context-manager/context-manager";
import { clip } from "../../../lib/knowledge/text";
import type { Runtime } from "../../../lib/runtime";
import { swissRuntime } from "../../../test/helpers";

let rt: Runtime | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

const output = (topic: string) => Array.from({ length: 40 }, (_, i) => `Step ${i}: handle the ${topic} case and log what happened.`).join(" ");

describe("Context Manager memory", () => {
  it("holds nothing per result in memory, yet a hit has the stored title and snippet", async () => {
    rt = await swissRuntime();
    const cm = new ContextManager(rt.db, rt.clock, rt.provider);
    await cm.seed();
    await cm.search("warm the index", "code");
    const own = () => JSON.stringify(Object.entries(cm).map(([k, v]) => [k, v === null ? "null" : typeof v === "object" ? v.constructor.name : typeof v]));
    const held = own();
    const requests = [
      "Implement quaternion slerp interpolation for smooth camera rotation in the renderer",
      "Parse semicolon separated invoice exports into ledger entries",
      "Throttle webhook deliveries per tenant with a token bucket",
    ];
    for (const [i, content] of requests.entries()) {
      const stored = await cm.storeResult({
        runId: `run-${i}`,
        requestId: `req-${i}`,
        content,
        requestType: "code",
        output: output(content.split(" ")[1]),
        success: true,
        partial: false,
        execution: null,
        hits: [],
        tokens: 10,
        executionMs: 1,
      });
      expect(stored.storage).toBe("stored");
    }
    const { hits } = await cm.search("quaternion slerp camera rotation", "code");
    const hit = hits.find((h) => h.id === "result:req-0");
    expect(hit, JSON.stringify(hits.map((h) => h.id))).toBeDefined();
    expect(hit!.title).toBe(`Earlier request: ${requests[0]}`);
    expect(hit!.snippet).toBe(clip(`${requests[0]}\n${output("quaternion")}`, 400));
    expect(hits.some((h) => h.id === "result:req-1")).toBe(false);

    // the Context Manager's own state did not grow with the results stored
    expect(own()).toBe(held);
    expect(Object.values(cm).some((v) => v instanceof Map || Array.isArray(v))).toBe(false);

    // another process (a new Context Manager) finds them at once: nothing to build or catch up
    const other = new ContextManager(rt.db, rt.clock, rt.provider);
    expect((await other.search("quaternion slerp camera rotation", "code")).hits.find((h) => h.id === "result:req-0")?.score).toBe(hit!.score);

    // an index that covers every row is kept as it is when the database is opened again (a rebuild
    // at every start would make restarts grow with the results stored)
    expect(await prepareCmText(rt.db, rt.provider)).toEqual({ rebuilt: false });

    // a database whose index lost rows (written before the index existed, copied in) is re-indexed on open
    await rt.db.$executeRawUnsafe(`DELETE FROM "CmText"`);
    expect((await other.search("quaternion slerp camera rotation", "code")).hits.some((h) => h.id === "result:req-0")).toBe(false);
    const reopened = new ContextManager(rt.db, rt.clock, rt.provider);
    expect((await reopened.search("quaternion slerp camera rotation", "code")).hits.find((h) => h.id === "result:req-0")?.score).toBe(hit!.score);

    // a decision still weighs in the ranking (read from the row)
    await cm.logDecision("req-0", "approved", "", []);
    const again = await cm.search("quaternion slerp camera rotation", "code");
    expect(again.hits.find((h) => h.id === "result:req-0")!.score).toBeGreaterThan(hit!.score);
  });
});

describe("Context Manager search cost", () => {
  it("SQLite searches the newest SEARCHED_RESULTS results (and every pattern): an older one is no longer found", async () => {
    rt = await swissRuntime();
    const cm = new ContextManager(rt.db, rt.clock, rt.provider);
    await cm.seed();
    const db = rt.sqlite!.db;
    const insert = db.prepare(
      `INSERT INTO "CmResult" ("id","requestId","runId","content","output","success","patterns","metrics","links","storageStatus","createdAt") VALUES (?,?,?,?,?,1,'{}','{}','[]','success',?)`,
    );
    const add = (id: string, content: string) => insert.run(id, id, `run-${id}`, content, "done", new Date(0).toISOString());
    db.transaction(() => {
      add("old-zebra", "Teach the zebra crossing detector to see faded stripes");
      for (let i = 0; i < SEARCHED_RESULTS - 1; i++) add(`filler-${i}`, `Filler request number ${i} about invoices`);
    })();
    const find = async () => (await cm.search("zebra crossing detector stripes", "code")).hits.some((h) => h.id === "result:old-zebra");
    expect(await find()).toBe(true); // the newest 20,000 include it
    add("one-more", "Filler request that pushes the oldest out");
    expect(await find()).toBe(false);
    // a pattern is found however many results came after it
    expect((await cm.search("Add retries with exponential backoff to the HTTP client", "code")).hits[0].title).toBe("Retry with exponential backoff");
  }, 60_000);
});
