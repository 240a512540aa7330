// The SQLite writer: batches applied on a worker thread (its own connection) or inline, with the
// same outcomes: one transaction per batch, per-item conflicts undone in a savepoint, a failing
// statement rolling back its whole batch, and the handle's lock keeping the two connections
// from ever writing at the same time.
//
// vitest: shared — its one spy (console.warn) is restored in the test that sets it.
import fs from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openSqlite, WAL_CHECKPOINT_CAP_PAGES, WAL_CHECKPOINT_PAGES, type SqliteHandle } from "../lib/db/sqlite";
import { Checkpointer } from "../lib/db/sqlite-checkpointer";
import { SqliteWriter, writersIdle, type WriteItem } from "../lib/db/sqlite-writer";
import { tempDbUrl } from "./helpers";

const SQL = [
  `INSERT INTO "Doc" ("id","v") VALUES (?,?)`, // 0: a duplicate id is a conflict (check 2)
  `UPDATE "Doc" SET "v"=? WHERE "id"=? AND "v"=?`, // 1: compare-and-set (check 1)
  `INSERT INTO "Log" ("line") VALUES (?)`, // 2: NOT NULL: a null line fails the batch
];

let opened: { handle: SqliteHandle; writer: SqliteWriter }[] = [];
afterEach(async () => {
  for (const o of opened) {
    await o.writer.close();
    o.handle.db.close();
  }
  opened = [];
});

function open(mode: "thread" | "inline", upkeep?: { sqls: string[]; afterMs: number }) {
  const file = tempDbUrl("writer", { empty: true }).replace(/^file:/, "");
  const handle = openSqlite(file);
  handle.db.exec(`CREATE TABLE "Doc" ("id" TEXT PRIMARY KEY, "v" INTEGER NOT NULL); CREATE TABLE "Log" ("line" TEXT NOT NULL)`);
  const writer = new SqliteWriter(handle, SQL, mode, upkeep);
  opened.push({ handle, writer });
  return { handle, writer, docs: () => handle.db.prepare(`SELECT "id","v" FROM "Doc" ORDER BY "id"`).safeIntegers(false).all(), log: () => handle.db.prepare(`SELECT "line" FROM "Log"`).pluck().all() };
}

/** 20 small inserts make a few dozen WAL frames: far below this, and far below the size that forces a checkpoint */
const SMALL_WAL_FRAMES = 100;
const insert = (id: string, v: number, line: string | null = `insert ${id}`): WriteItem => ({ guarded: false, ops: [[0, [id, v], 2], [2, [line], 0]] });
const bump = (id: string, from: number, to: number, guarded = true): WriteItem => ({ guarded, ops: [[2, [`bump ${id} ${from}→${to}`], 0], [1, [to, id, from], 1]] });

describe.each(["thread", "inline"] as const)("SQLite writer (%s)", (mode) => {
  it("applies a batch in order; a conflicting item is undone alone, the others commit", async () => {
    const w = open(mode);
    expect(w.writer.mode).toBe(mode);
    expect(await w.writer.write([insert("a", 1), insert("b", 1), insert("a", 9)])).toEqual(["ok", "ok", "conflict"]);
    // the second bump of "a" expects 1 but the first already made it 2: its log line is rolled back with it
    expect(await w.writer.write([bump("a", 1, 2), bump("a", 1, 3), bump("b", 1, 5)])).toEqual(["ok", "conflict", "ok"]);
    expect(w.docs()).toEqual([
      { id: "a", v: 2 },
      { id: "b", v: 5 },
    ]);
    expect(w.log()).toEqual(["insert a", "insert b", "bump a 1→2", "bump b 1→5"]);
  });

  it("takes statements given as SQL (prepared once) and statements without arguments, between items with many", async () => {
    const w = open(mode);
    const literal = `INSERT INTO "Log" ("line") VALUES ('literal')`;
    const items: WriteItem[] = [insert("a", 1), { guarded: false, ops: [[literal, [], 0], [`UPDATE "Doc" SET "v"=? WHERE "id"=?`, [7, "a"], 1]] }, bump("a", 7, 8), { guarded: false, ops: [] }];
    expect(await w.writer.write(items)).toEqual(["ok", "ok", "ok", "ok"]);
    expect(await w.writer.write([{ guarded: true, ops: [[literal, [], 0], [`UPDATE "Doc" SET "v"=? WHERE "id"=?`, [9, "missing"], 1]] }, insert("b", 2)])).toEqual(["conflict", "ok"]);
    expect(w.docs()).toEqual([
      { id: "a", v: 8 },
      { id: "b", v: 2 },
    ]);
    expect(w.log()).toEqual(["insert a", "literal", "bump a 7→8", "insert b"]);
  });

  it("a statement that fails rolls back its whole batch and rejects it; the writer goes on", async () => {
    const w = open(mode);
    await expect(w.writer.write([insert("a", 1), insert("b", 1, null)])).rejects.toThrow(/NOT NULL/);
    expect(w.docs()).toEqual([]);
    expect(await w.writer.write([insert("c", 1)])).toEqual(["ok"]);
    expect(w.docs()).toEqual([{ id: "c", v: 1 }]);
  });

  it("upkeep runs once, a moment after a burst of batches, in a transaction of its own (and on close if owed)", async () => {
    const w = open(mode, { sqls: [`INSERT INTO "Log" ("line") VALUES ('tidied')`], afterMs: 30 });
    await Promise.all([w.writer.write([insert("a", 1)]), w.writer.write([insert("b", 1)])]);
    expect(w.log()).not.toContain("tidied");
    await vi.waitFor(() => expect(w.log()).toContain("tidied"));
    expect(w.log().filter((l) => l === "tidied")).toHaveLength(1);
    await w.writer.write([insert("c", 1)]);
    await w.writer.close(); // owed: runs before the writer closes
    expect(w.log().filter((l) => l === "tidied")).toHaveLength(2);
  });

  it("a transaction on the shared connection and a batch never overlap", async () => {
    const w = open(mode);
    const order: string[] = [];
    let leave: () => void = () => {};
    const held = w.handle.mutex.runExclusive(async () => {
      order.push("exclusive in");
      await new Promise<void>((r) => (leave = r));
      order.push("exclusive out");
    });
    await vi.waitFor(() => expect(order).toEqual(["exclusive in"]));
    const batch = w.writer.write([insert("a", 1)]).then(() => order.push("batch committed"));
    // (a window for a batch that did not wait to commit: not an ordering sleep)
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(["exclusive in"]); // the batch waits for the transaction
    leave();
    await Promise.all([held, batch]);
    expect(order).toEqual(["exclusive in", "exclusive out", "batch committed"]);
    // …and a transaction waits for batches in flight
    const many = Array.from({ length: 20 }, (_, i) => w.writer.write([insert(`k${i}`, i)]));
    const counted = await w.handle.mutex.runExclusive(() => (w.handle.db.prepare(`SELECT COUNT(*) AS n FROM "Doc"`).safeIntegers(false).get() as { n: number }).n);
    expect(counted).toBe(21);
    await Promise.all(many);
    await writersIdle();
  });
});

describe("SQLite writer thread", () => {
  it("writes on its own connection, visible to the shared one as soon as the batch resolves", async () => {
    const w = open("thread");
    await w.writer.write([insert("a", 1)]);
    expect(w.docs()).toEqual([{ id: "a", v: 1 }]);
    expect(w.writer.utilization()?.activeMs).toBeGreaterThan(0);
  });

  it("both connections checkpoint the WAL every WAL_CHECKPOINT_PAGES pages, not at SQLite's 1,000", async () => {
    const w = open("thread");
    expect(w.handle.db.pragma("wal_autocheckpoint", { simple: true })).toBe(WAL_CHECKPOINT_PAGES);
    // ~6 MB through the writer thread: past 1,000 pages (4 MB) a default connection would have
    // checkpointed and started the WAL over; at 8,000 pages it is still growing
    const big = "x".repeat(10_000);
    for (let b = 0; b < 6; b++) await w.writer.write(Array.from({ length: 100 }, (_, i) => insert(`${b}-${i}`, i, big)));
    expect(fs.statSync(`${w.handle.file}-wal`).size).toBeGreaterThan(5_500_000);
  });

  it("checkpoints run on a thread of their own once WAL_CHECKPOINT_PAGES frames wait; the connections' own are only a backstop", async () => {
    const w = open("thread");
    const big = "x".repeat(10_000);
    await w.writer.write([insert("first", 0)]);
    expect(w.handle.db.pragma("wal_autocheckpoint", { simple: true })).toBe(WAL_CHECKPOINT_CAP_PAGES);
    // ~36 MB through the writer: past 8,000 frames. A writer connection checkpointing at 8,000
    // itself would leave the checkpoint thread fewer than that to copy.
    for (let b = 0; b < 36; b++) await w.writer.write(Array.from({ length: 100 }, (_, i) => insert(`${b}-${i}`, i, big)));
    let stats = { runs: 0, frames: 0 };
    for (let i = 0; i < 100 && stats.frames < WAL_CHECKPOINT_PAGES; i++) {
      await new Promise((r) => setTimeout(r, 50));
      stats = (await w.writer.checkpoints())!;
    }
    expect(stats.runs).toBeGreaterThan(0);
    expect(stats.frames).toBeGreaterThanOrEqual(WAL_CHECKPOINT_PAGES);
    // every frame was copied back: a new write starts the WAL over from its beginning
    expect(w.docs()).toHaveLength(3_601);
    await w.writer.close();
    // with the thread gone, the shared connection checkpoints for itself again
    expect(w.handle.db.pragma("wal_autocheckpoint", { simple: true })).toBe(WAL_CHECKPOINT_PAGES);
  });

  it("a small WAL is checkpointed a second after the last write", async () => {
    const w = open("thread");
    await w.writer.write(Array.from({ length: 20 }, (_, i) => insert(`s-${i}`, i)));
    // the checkpoint thread acts after a second without writes: wait for its checkpoint (a hang guard, not a deadline)
    await expect.poll(async () => (await w.writer.checkpoints())!.runs, { timeout: 30_000, interval: 50 }).toBe(1);
    const stats = (await w.writer.checkpoints())!;
    expect(stats.runs).toBe(1);
    expect(stats.frames).toBeGreaterThan(0);
    expect(stats.frames).toBeLessThan(SMALL_WAL_FRAMES);
  });

  it("a checkpoint thread that cannot open its database says so once and closes cleanly", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const c = new Checkpointer({ driver: "better-sqlite3", file: "/nonexistent/dir/x.db", synchronous: "NORMAL", pages: 10 });
      await c.close();
      expect(await c.stats()).toEqual({ runs: 0, frames: 0 });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(/checkpoint thread stopped/);
    } finally {
      warn.mockRestore();
    }
  });

  it("a thread that dies rejects what it had not answered, and the next batch starts a new one", async () => {
    const w = open("thread");
    await w.writer.write([insert("a", 1)]);
    const worker = (w.writer as unknown as { worker: { terminate(): Promise<number> } }).worker;
    const cut = w.writer.write([insert("b", 1)]).then(
      () => "committed",
      (e: Error) => e.message,
    );
    await worker.terminate();
    // the batch either committed before the thread went, or is rejected: never left hanging
    const outcome = await cut;
    const ids = () => w.docs().map((d) => (d as { id: string }).id);
    if (outcome === "committed") expect(ids()).toContain("b");
    else expect(outcome).toMatch(/exited/);
    expect(await w.writer.write([insert("c", 1)])).toEqual(["ok"]);
    expect(ids()).toContain("c");
  });

  it("a closed writer refuses batches", async () => {
    const w = open("thread");
    await w.writer.write([insert("a", 1)]);
    await w.writer.close();
    await expect(w.writer.write([insert("b", 1)])).rejects.toThrow(/closed/);
  });
});
