// The knowledge documents list filters titles and sources the same way on every database:
// case-insensitively (SQLite's LIKE already does; PostgreSQL has to be asked). PostgreSQL runs
// when reachable, else it is skipped with the reason printed.
import { afterAll, beforeAll, describe, expect } from "vitest";
import { prismaOnSqlite, type Db } from "../lib/db/client";
import { pgTarget, prismaOnPostgres } from "../lib/db/postgres";
import { KnowledgeStore } from "../lib/knowledge/documents";
import { DATABASES, opened } from "./support/databases";

for (const d of DATABASES) {
  describe(`knowledge list filter on ${d.name}`, () => {
    const h = opened(d, "knowledge-list");
    let db: Db | null = null;
    let store: KnowledgeStore;
    beforeAll(async () => {
      const t = await h.open();
      if (!t) return;
      db = t.ports.sqlite ? await prismaOnSqlite(t.ports.sqlite) : prismaOnPostgres(pgTarget(t.url), 2);
      store = new KnowledgeStore(db, { dialect: t.dialect, staleCheckMs: 0 });
      await store.importDocument({ source: "notes/On-Call.md", content: "# On-call Runbook\n\nRestart the worker with care." });
      await store.importDocument({ source: "faq.txt", content: "Frequently asked questions\n\nAsk the admin." });
    }, 60_000);
    afterAll(async () => {
      if (h.db?.dialect === "postgres") await db?.$disconnect();
      await h.close();
    });

    h.it("matches titles and sources whatever the case", async () => {
      const titles = async (q: string) => (await store.list({ q })).documents.map((doc) => doc.title);
      expect(await titles("runbook")).toEqual(["On-call Runbook"]);
      expect(await titles("RUNBOOK")).toEqual(["On-call Runbook"]);
      expect(await titles("on-call.MD")).toEqual(["On-call Runbook"]); // the source
      expect(await titles("Frequently")).toEqual(["Frequently asked questions"]);
      expect(await titles("nothing like it")).toEqual([]);
      expect((await store.list({ q: "runbook" })).total).toBe(1);
    });
  });
}
