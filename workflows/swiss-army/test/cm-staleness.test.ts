// Cluster mode: two Context Managers over one database, as two workers. The
// search index is in the database, so what one learns (a result, a pattern, a decision)
// is found by the other's very next search, with no interval in between. SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prismaOnSqlite, type Db } from "../../../lib/db/client";
import { pgTarget, prismaOnPostgres } from "../../../lib/db/postgres";
import { ManualClock } from "../../../lib/engine/clock";
import { searchCmText } from "../context-manager/cm-text";
import { ContextManager, type StoreResultInput } from "../context-manager/context-manager";
import { DATABASES, opened } from "../../../test/support/databases";

const REQUEST = "Implement quaternion slerp interpolation for smooth camera rotation in the renderer";

function result(requestId: string, content: string): StoreResultInput {
  return {
    runId: `run-${requestId}`,
    requestId,
    content,
    requestType: "code",
    output: "function slerp(a, b, t) { /* normalise, clamp the dot product, interpolate on the sphere */ }",
    success: true,
    partial: false,
    execution: null,
    hits: [],
    tokens: 42,
    executionMs: 5,
  };
}

for (const database of DATABASES.slice(0, 2)) {
  describe(`Context Manager index across processes: ${database.name}`, () => {
    const h = opened(database, "cm staleness");
    let db: Db | null = null;
    let dialect: "sqlite" | "postgres" = "sqlite";
    beforeAll(async () => {
      const t = await h.open();
      if (t) dialect = t.dialect;
      if (t) db = t.dialect === "sqlite" ? await prismaOnSqlite(t.ports.sqlite!) : prismaOnPostgres(pgTarget(t.url), 4);
    }, 60_000);
    afterAll(async () => {
      await db?.$disconnect();
      await h.close();
    });

    h.it("a result and pattern learned by one worker are found by the other's search; a decision there too", async () => {
      const clock = new ManualClock(Date.parse("2026-11-26T12:00:00Z"));
      const a = new ContextManager(db!, clock, dialect);
      const b = new ContextManager(db!, clock, dialect);
      await a.seed();
      // worker B has built its index already (its first search)
      const before = await b.search(REQUEST, "code");
      expect(before.hits.some((x) => x.title.includes("quaternion"))).toBe(false);
      // worker A learns from a request
      clock.advance(1_000);
      const stored = await a.storeResult(result("req-1", REQUEST));
      expect(stored.storage).toBe("stored");
      const learned = (await a.patterns()).filter((p) => stored.patterns_discovered.includes(p.name));
      const after = await b.search(REQUEST, "code");
      const hit = after.hits.find((x) => x.id === "result:req-1");
      expect(hit, JSON.stringify(after.hits.map((x) => x.id))).toBeDefined();
      for (const p of learned) expect((await b.search(`${p.name} ${p.keywords}`, "code", 50)).hits.map((x) => x.title)).toContain(p.name);
      // a rejection logged by A lowers the weight B gives that result
      clock.advance(1_000);
      await a.logDecision("req-1", "rejected", "wrong formula", [], "key-1");
      const rejected = (await b.search(REQUEST, "code")).hits.find((x) => x.id === "result:req-1");
      expect(rejected?.score ?? 0).toBeLessThan(hit!.score);
      // the request's words reach the database's query language as data, never as its syntax
      for (const hostile of [`"quaternion NEAR(slerp AND OR * ^camera:rotation`, "quaternion' | !& :* <-> \\ $1 ? slerp camera", "slerp\u0000 rotation ) ( - quaternion"]) {
        const found = await b.search(hostile, "code");
        expect(found.hits.map((x) => x.id), hostile).toContain("result:req-1");
      }
      // and terms that are all syntax, straight to the index: no error, at most no match
      const raw = await searchCmText(db!, dialect, ['"', 'slerp"*', "NEAR(", ":*|&!", "'); --", "\u0000", "*"], 10);
      expect(raw.every((x) => x.id.startsWith("result:") || x.id.startsWith("pattern:"))).toBe(true);
      expect((await searchCmText(db!, dialect, ['quaternion"', "(slerp"], 10)).map((x) => x.id)).toContain("result:req-1");
    });
  });
}
