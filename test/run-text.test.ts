// The SQLite free-text index off the commit path: a commit that changes a run's output only marks
// the run stale; the writer re-indexes stale runs a moment later, a search re-indexes them before
// it reads (so it never sees an old output), and marks a crash left behind are re-indexed when
// the store opens.
import { afterEach, describe, expect, it } from "vitest";
import { openSqlite } from "../lib/db/sqlite";
import { migrateDatabase } from "../lib/db/migrations";
import { sqlitePath } from "../lib/db/url";
import { SqliteRunStore } from "../lib/engine/store/sqlite";
import { STALE_REINDEX_MS } from "../lib/engine/store/sqlite-text";
import { tempDbUrl } from "./helpers";
import { commitItem, runRow } from "./support/databases";

const T0 = Date.UTC(2026, 10, 24, 9);
let cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function open(url?: string) {
  url ??= tempDbUrl("text");
  await migrateDatabase(url);
  const handle = openSqlite(sqlitePath(url));
  const store = new SqliteRunStore(handle);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await store.close();
    handle.db.close();
  };
  cleanup.push(close);
  const stale = () => handle.db.prepare(`SELECT COUNT(*) FROM "RunTextStale"`).pluck().safeIntegers(false).get() as number;
  const indexed = (text: string) => handle.db.prepare(`SELECT COUNT(*) FROM "RunText" WHERE "RunText" MATCH ?`).pluck().safeIntegers(false).get(`"${text}"`) as number;
  const found = async (text: string) => (await store.listRuns({ text })).map((r) => r.id);
  return { url, handle, store, stale, indexed, found, close };
}

async function runWithOutputs(s: Awaited<ReturnType<typeof open>>, id: string, outputs: string[]) {
  let row = runRow(id, T0, { output: { text: outputs[0] } });
  expect(await s.store.commit([commitItem(row, null)])).toEqual(["ok"]);
  for (const text of outputs.slice(1)) {
    const next = { ...row, output: { text }, version: row.version + 1, updatedAt: row.updatedAt + 1 };
    expect(await s.store.commit([commitItem(next, row.version)])).toEqual(["ok"]);
    row = next;
  }
}

describe("free-text index off the commit path (SQLite)", () => {
  it("a new run is searchable at once; a changed output is only marked stale by its commit", async () => {
    const s = await open();
    await runWithOutputs(s, "run-a", ["first answer alpha"]);
    expect(s.indexed("alpha")).toBe(1);
    expect(s.stale()).toBe(0);
    await runWithOutputs(s, "run-b", ["draft bravo", "second draft charlie", "final delta"]);
    expect(s.stale()).toBe(1); // one mark, however many changes
    expect(s.indexed("delta")).toBe(0);
  });

  it("a search re-indexes stale runs before it reads: the new output is found, the old one is not", async () => {
    const s = await open();
    await runWithOutputs(s, "run-a", ["old output echo", "new output foxtrot"]);
    expect(await s.found("foxtrot")).toEqual(["run-a"]);
    expect(await s.found("echo")).toEqual([]);
    expect(await s.store.countRuns({ text: "foxtrot" })).toBe(1);
    expect(s.stale()).toBe(0);
  });

  it("without a search, the writer re-indexes them a moment after the commits", async () => {
    const s = await open();
    await runWithOutputs(s, "run-a", ["one golf", "two hotel"]);
    expect(s.stale()).toBe(1);
    const deadline = Date.now() + STALE_REINDEX_MS * 5;
    while (s.stale() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(s.stale()).toBe(0);
    expect(s.indexed("hotel")).toBe(1);
    expect(s.indexed("golf")).toBe(0);
  });

  it("closing the store re-indexes what is still stale", async () => {
    const s = await open();
    await runWithOutputs(s, "run-a", ["one india", "two juliet"]);
    await s.store.close();
    expect(s.stale()).toBe(0);
    expect(s.indexed("juliet")).toBe(1);
  });

  it("marks a crash left behind are re-indexed when the store opens", async () => {
    const s = await open();
    await runWithOutputs(s, "run-a", ["one kilo", "two lima"]);
    // as if the process died before the re-index: the mark is there, the index has the old text
    const url = s.url;
    const db = s.handle.db;
    await s.store.close(); // (re-indexes; put the crash state back by hand)
    db.exec(`DELETE FROM "RunText"; INSERT INTO "RunText" (rowid, "text") SELECT rowid, 'run-a one kilo' FROM "Run"; INSERT INTO "RunTextStale" ("runRowid") SELECT rowid FROM "Run"`);
    expect(s.indexed("kilo")).toBe(1);
    await s.close();
    const again = await open(url);
    expect(again.stale()).toBe(0);
    expect(again.indexed("lima")).toBe(1);
    expect(again.indexed("kilo")).toBe(0);
  });

  it("a run table rebuilt with its rowids renumbered is re-indexed when the store opens", async () => {
    const s = await open();
    await runWithOutputs(s, "run-gone", ["mike"]);
    await runWithOutputs(s, "run-b", ["november"]);
    await runWithOutputs(s, "run-c", ["oscar"]);
    await s.store.close();
    const db = s.handle.db;
    db.exec(`DELETE FROM "Run" WHERE "id" = 'run-gone'`);
    // what redefining the table does: the same rows, copied, numbered from 1 again
    db.exec(`DROP TRIGGER "RunText_insert"; DROP TRIGGER "RunText_delete"; DROP TRIGGER "RunText_stale";
      CREATE TABLE "RunCopy" AS SELECT * FROM "Run" ORDER BY rowid; DELETE FROM "Run";
      INSERT INTO "Run" SELECT * FROM "RunCopy"; DROP TABLE "RunCopy";`);
    expect(db.prepare(`SELECT rowid FROM "Run" WHERE "id" = 'run-c'`).pluck().get()).not.toBe(3);
    await s.close();
    const again = await open(s.url);
    expect(await again.found("oscar")).toEqual(["run-c"]);
    expect(await again.found("november")).toEqual(["run-b"]);
    expect(await again.found("mike")).toEqual([]);
  });
});
