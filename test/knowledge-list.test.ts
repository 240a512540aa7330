// The knowledge documents list filters titles and sources the same way on both databases:
// case-insensitively (SQLite's LIKE already does; PostgreSQL has to be asked). PostgreSQL runs
// when reachable, else it is skipped with the reason printed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../lib/db/client";
import { migrateDatabase } from "../lib/db/migrations";
import { pgReachable, scratchSchema, type ScratchSchema } from "../lib/db/pg-scratch";
import { pgTarget, prismaOnPostgres } from "../lib/db/postgres";
import { prismaOnSqlite } from "../lib/db/client";
import { openSqlite } from "../lib/db/sqlite";
import { sqlitePath } from "../lib/db/url";
import { KnowledgeStore } from "../lib/knowledge/documents";
import { PG_URL } from "./support/databases";
import { tempDbUrl } from "./helpers";

interface Opened {
  store: KnowledgeStore;
  close(): Promise<void>;
}

async function onSqlite(): Promise<Opened> {
  const url = tempDbUrl("knowledge-list");
  await migrateDatabase(url);
  const handle = openSqlite(sqlitePath(url));
  const db = await prismaOnSqlite(handle);
  return { store: new KnowledgeStore(db, { dialect: "sqlite", staleCheckMs: 0 }), close: async () => void handle.db.close() };
}

async function onPostgres(): Promise<Opened> {
  const scratch: ScratchSchema = await scratchSchema(PG_URL, "sy_knowledge");
  const db: Db = prismaOnPostgres(pgTarget(`${PG_URL}?schema=${scratch.schema}`), 2);
  return {
    store: new KnowledgeStore(db, { dialect: "postgres", staleCheckMs: 0 }),
    close: async () => {
      await db.$disconnect();
      await scratch.drop();
    },
  };
}

const DATABASES: { name: string; open: () => Promise<Opened>; reachable: () => Promise<string | null> }[] = [
  { name: "SQLite", open: onSqlite, reachable: async () => null },
  { name: "PostgreSQL", open: onPostgres, reachable: () => pgReachable(PG_URL) },
];

for (const d of DATABASES) {
  describe(`knowledge list filter on ${d.name}`, () => {
    let opened: Opened | null = null;
    let skip: string | null = null;
    beforeAll(async () => {
      skip = await d.reachable();
      if (skip) {
        console.log(`[knowledge-list] ${d.name} skipped: not usable at ${PG_URL} (${skip})`);
        return;
      }
      opened = await d.open();
      await opened.store.importDocument({ source: "notes/On-Call.md", content: "# On-call Runbook\n\nRestart the worker with care." });
      await opened.store.importDocument({ source: "faq.txt", content: "Frequently asked questions\n\nAsk the admin." });
    }, 60_000);
    afterAll(async () => {
      await opened?.close();
    });

    it("matches titles and sources whatever the case", async (ctx) => {
      if (!opened) return ctx.skip();
      const titles = async (q: string) => (await opened!.store.list({ q })).documents.map((doc) => doc.title);
      expect(await titles("runbook")).toEqual(["On-call Runbook"]);
      expect(await titles("RUNBOOK")).toEqual(["On-call Runbook"]);
      expect(await titles("on-call.MD")).toEqual(["On-call Runbook"]); // the source
      expect(await titles("Frequently")).toEqual(["Frequently asked questions"]);
      expect(await titles("nothing like it")).toEqual([]);
      expect((await opened!.store.list({ q: "runbook" })).total).toBe(1);
    });
  });
}
