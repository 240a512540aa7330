// Batches of SQLite writes, run on a worker thread with a connection of its own, so the event
// loop keeps stepping runs (XState, serialisation, HTTP) while the previous batch is written:
// the engine's CPU work and SQLite's b-tree and WAL work overlap on two cores instead of taking
// turns on one. Each batch is still one transaction, and each caller still waits for its own
// batch to commit before it goes on.
//
// What crosses the thread boundary is plain data: the statements' SQL once, then per batch a
// list of items, each a list of [statement, arguments, check] (serialised on the caller's side),
// flattened into one array (encodeBatch).
// One executor (EXECUTOR below) applies them, on the worker or, for an in-memory database that
// a second connection cannot open, inline on the caller's connection.
//
// Writes on the caller's connection (Prisma transactions, retention, sql.ts) take the handle's
// lock, which waits until no batch is in flight; a batch waits until no such transaction is open
// (see SqliteLock in sqlite.ts). The two connections therefore never contend for the write lock.
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { Checkpointer } from "./sqlite-checkpointer";
import { WAL_CHECKPOINT_CAP_PAGES, WAL_CHECKPOINT_PAGES, type SqliteHandle } from "./sqlite";

/**
 * [statement, arguments, check]: the statement is an index into the writer's statements or, for
 * statements built per write (an UPDATE of the columns that changed), its SQL, prepared once and
 * kept; check 1 = must change a row, 2 = a constraint violation is a conflict, 3 = a counter:
 * arguments `[row, increment]`, where `row` numbers one of the batch's counter rows, and the first
 * op of each row carries its other arguments after those two (`[row, increment, ...arguments]`).
 * The increments of the batch's committed items are summed per row, and the statement runs once
 * per row at the end of the batch's transaction, with the row's arguments and then the sum.
 */
export type WriteOp = [number | string, unknown[], 0 | 1 | 2 | 3];
/** One item's writes; `guarded` items run in a savepoint, so a failed check undoes only them. */
export interface WriteItem {
  guarded: boolean;
  ops: WriteOp[];
}
export type WriteOutcome = "ok" | "conflict";

/**
 * A batch as it crosses to the writer: one flat array of plain values, no object per item or
 * statement. Structured cloning pays per object (each is tracked for back-references on both
 * sides); flat, a batch of 100 steps posts in about two thirds of the time.
 *
 * Layout: per item, `guarded` (0|1) and the number of slots that follow for it; then per
 * statement, the statement, its check and its argument count, then the arguments.
 */
export function encodeBatch(items: WriteItem[]): unknown[] {
  const flat: unknown[] = [];
  for (const item of items) {
    flat.push(item.guarded ? 1 : 0, 0);
    const size = flat.length - 1;
    for (const [statement, args, check] of item.ops) {
      flat.push(statement, check, args.length);
      for (let i = 0; i < args.length; i++) flat.push(args[i]);
    }
    flat[size] = flat.length - size - 1;
  }
  return flat;
}

// Plain JavaScript (it is evaluated on the worker as is): prepares the statements on `db` and
// returns { write: apply an encoded batch (encodeBatch) in one IMMEDIATE transaction, tidy: run
// the `after` statements (deferred upkeep such as re-indexing) in one transaction of their own }.
const EXECUTOR = String.raw`(function (db, sqls, after) {
  var stmts = sqls.map(function (s) { return db.prepare(s); });
  var built = new Map();
  function statement(s) {
    if (typeof s === "number") return stmts[s];
    var st = built.get(s);
    if (!st) { st = db.prepare(s); built.set(s, st); }
    return st;
  }
  var save = db.prepare("SAVEPOINT item"), release = db.prepare("RELEASE item"), back = db.prepare("ROLLBACK TO item");
  function undo(guarded) { if (guarded) { back.run(); release.run(); } return "conflict"; }
  // counters (check 3): the batch's rows ([statement, arguments] by number), their sums so far
  // (undefined: no committed item added to it), and the current item's [row, increment] pairs
  // (summed once it commits)
  var rows = [], sums = [], mine = [];
  function keep() {
    for (var i = 0; i < mine.length; i += 2) {
      var row = mine[i];
      sums[row] = sums[row] === undefined ? mine[i + 1] : sums[row] + mine[i + 1];
    }
    mine.length = 0;
  }
  // the item whose slots are flat[from, end)
  function one(flat, guarded, from, end) {
    mine.length = 0;
    if (guarded) save.run();
    try {
      for (var p = from; p < end; ) {
        var st, check = flat[p + 1], n = flat[p + 2], r;
        if (check === 3) {
          if (n > 2) rows[flat[p + 3]] = [flat[p], flat.slice(p + 5, p + 3 + n)];
          mine.push(flat[p + 3], flat[p + 4]);
          p += 3 + n;
          continue;
        }
        var args = flat.slice(p + 3, p + 3 + n);
        st = statement(flat[p]);
        p += 3 + n;
        try { r = st.run.apply(st, args); }
        catch (e) {
          if (check === 2 && e && typeof e.code === "string" && e.code.indexOf("SQLITE_CONSTRAINT") === 0) return undo(guarded);
          throw e;
        }
        if (check === 1 && Number(r.changes) === 0) return undo(guarded);
      }
      if (guarded) release.run();
      keep();
      return "ok";
    } catch (e) {
      if (guarded) { back.run(); release.run(); }
      throw e;
    }
  }
  var tx = db.transaction(function (flat) {
    var out = [];
    rows.length = 0;
    sums.length = 0;
    for (var p = 0; p < flat.length; ) {
      var guarded = flat[p] === 1, size = flat[p + 1];
      out.push(one(flat, guarded, p + 2, p + 2 + size));
      p += 2 + size;
    }
    for (var k = 0; k < rows.length; k++) {
      if (sums[k] === undefined) continue;
      var st = statement(rows[k][0]);
      st.run.apply(st, rows[k][1].concat([sums[k]]));
    }
    rows.length = 0;
    sums.length = 0;
    return out;
  });
  var upkeep = (after || []).map(function (s) { return db.prepare(s); });
  var tidy = db.transaction(function () { upkeep.forEach(function (st) { st.run(); }); });
  return { write: function (flat) { return tx.immediate(flat); }, tidy: function () { tidy.immediate(); return []; } };
})`;

const WORKER = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = " + workerData.synchronous);
db.pragma("busy_timeout = 5000");
db.pragma("wal_autocheckpoint = " + workerData.checkpointPages);
const exec = (${EXECUTOR})(db, workerData.sqls, workerData.after);
parentPort.on("message", (m) => {
  if (m.close) {
    db.close();
    parentPort.close();
    return;
  }
  try {
    parentPort.postMessage({ id: m.id, outcomes: m.tidy ? exec.tidy() : exec.write(m.batch) });
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: { message: String((e && e.message) || e), code: e && e.code } });
  }
});`;

// batches in flight on every writer of this process (tests wait for them: writersIdle)
let inflightAll = 0;
let idleWaiters: (() => void)[] = [];
function settled(): void {
  if (--inflightAll === 0) for (const r of idleWaiters.splice(0)) r();
}

/** Resolves once no writer of this process has a batch in flight. */
export function writersIdle(): Promise<void> {
  return inflightAll === 0 ? Promise.resolve() : new Promise((r) => idleWaiters.push(r));
}

interface Executor {
  /** an encoded batch (encodeBatch) */
  write(batch: unknown[]): WriteOutcome[];
  tidy(): WriteOutcome[];
}

/** Upkeep the writer runs a moment after writing (e.g. re-indexing what the batches marked stale). */
export interface WriterUpkeep {
  sqls: string[];
  /** how long after a batch (at most once per this period) */
  afterMs: number;
}
type Mode = "thread" | "inline";

interface Waiting {
  resolve: (o: WriteOutcome[]) => void;
  reject: (e: unknown) => void;
}

/** Where better-sqlite3 lives, for the worker's require (bundled servers included). */
function driverPath(): string {
  try {
    return createRequire(path.join(process.cwd(), "package.json")).resolve("better-sqlite3");
  } catch {
    return "better-sqlite3";
  }
}

/** SWITCHYARD_SQLITE_WRITER: "inline" writes on the caller's connection; anything else, a thread. */
export function writerFromEnv(env: NodeJS.ProcessEnv): Mode {
  return env.SWITCHYARD_SQLITE_WRITER?.trim() === "inline" ? "inline" : "thread";
}

/** An in-memory database cannot be opened by a second connection: it is always written inline. */
function writerMode(file: string, wanted: Mode = "thread"): Mode {
  return file === ":memory:" || file.startsWith("file::memory:") ? "inline" : wanted;
}

export class SqliteWriter {
  readonly mode: Mode;
  private worker: Worker | null = null;
  private inline: Executor | null = null;
  private waiting = new Map<number, Waiting>();
  private next = 1;
  private closed = false;
  private upkeepTimer: ReturnType<typeof setTimeout> | null = null;
  private upkeepRun: Promise<void> | null = null;
  private checkpointer: Checkpointer | null = null;
  /** observer of each upkeep run (the benchmark replays them in order with the batches) */
  onTidy?: () => void;
  /** batches written since the last upkeep */
  private owed = false;

  constructor(
    private handle: SqliteHandle,
    private sqls: string[],
    mode?: Mode,
    private upkeep?: WriterUpkeep,
  ) {
    this.mode = writerMode(handle.file, mode);
  }

  /** Applies one batch in one transaction; resolves with each item's outcome once it is committed. */
  async write(items: WriteItem[]): Promise<WriteOutcome[]> {
    if (this.closed) throw new Error("the SQLite writer is closed");
    const done = await this.handle.mutex.begin();
    try {
      const sent = this.send(items);
      items = []; // not kept alive (with every row it serialised) while the commit is awaited
      const out = await sent;
      this.owed = true;
      this.scheduleUpkeep();
      return out;
    } finally {
      done();
    }
  }

  /** Encodes the batch and applies it inline, or posts it to the thread. */
  private send(items: WriteItem[]): WriteOutcome[] | Promise<WriteOutcome[]> {
    const batch = encodeBatch(items);
    return this.mode === "inline" ? this.executor().write(batch) : this.post({ batch });
  }

  private scheduleUpkeep(): void {
    if (!this.upkeep || this.upkeepTimer || this.closed) return;
    this.upkeepTimer = setTimeout(() => {
      this.upkeepTimer = null;
      this.upkeepRun = this.tidy().finally(() => (this.upkeepRun = null));
    }, this.upkeep.afterMs);
    this.upkeepTimer.unref?.();
  }

  /** Runs the upkeep now, as a batch of its own (same lock, same thread). Failures are left for the next time. */
  async tidy(): Promise<void> {
    if (!this.upkeep || this.closed || !this.owed) return;
    this.owed = false;
    const done = await this.handle.mutex.begin();
    this.onTidy?.();
    try {
      if (this.mode === "inline") this.executor().tidy();
      else await this.post({ tidy: true });
    } catch {
      // a busy or failing upkeep is tried again after the next batch (searches re-index for themselves)
      this.owed = true;
    } finally {
      done();
    }
  }

  private executor(): Executor {
    this.inline ??= (new Function(`return ${EXECUTOR}`)() as (db: unknown, sqls: string[], after?: string[]) => Executor)(this.handle.db, this.sqls, this.upkeep?.sqls);
    return this.inline;
  }

  private post(message: { batch: unknown[] } | { tidy: true }): Promise<WriteOutcome[]> {
    const worker = this.thread();
    const id = this.next++;
    const answer = this.answer(id);
    worker.ref(); // a batch in flight keeps the process alive
    // sent from here, not from a closure: nothing that waits for the answer holds on to the
    // batch (its serialised rows would otherwise stay reachable, and be copied by every young-
    // generation collection, until the commit is answered)
    worker.postMessage({ id, ...message });
    return answer;
  }

  /** The promise of batch `id`'s answer (settled by the worker's message, or its failure). */
  private answer(id: number): Promise<WriteOutcome[]> {
    return new Promise<WriteOutcome[]>((resolve, reject) => {
      inflightAll++;
      let done = false;
      const once = () => {
        if (!done) {
          done = true;
          settled();
        }
      };
      this.waiting.set(id, {
        resolve: (o) => {
          once();
          resolve(o);
        },
        reject: (e) => {
          once();
          reject(e);
        },
      });
    });
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const synchronous = String(this.handle.db.pragma("synchronous", { simple: true })) === "2" ? "FULL" : "NORMAL";
    // checkpoints run on a thread of their own (sqlite-checkpointer.ts); the connections' own are the backstop
    this.checkpointer ??= new Checkpointer({ driver: driverPath(), file: this.handle.file, synchronous, pages: WAL_CHECKPOINT_PAGES });
    this.handle.db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_CAP_PAGES}`);
    const worker = new Worker(WORKER, { eval: true, workerData: { driver: driverPath(), file: this.handle.file, synchronous, checkpointPages: WAL_CHECKPOINT_CAP_PAGES, sqls: this.sqls, after: this.upkeep?.sqls ?? [] } });
    worker.unref();
    worker.on("message", (m: { id: number; outcomes?: WriteOutcome[]; error?: { message: string; code?: string } }) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) worker.unref();
      if (m.error) w.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
      else w.resolve(m.outcomes!);
    });
    const fail = (e: unknown) => {
      // the thread is gone: what it had not answered is rejected (not committed, or not known to be)
      if (this.worker === worker) this.worker = null;
      for (const w of this.waiting.values()) w.reject(e);
      this.waiting.clear();
    };
    worker.on("error", fail);
    worker.on("exit", (code) => fail(new Error(`the SQLite writer thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  /** How busy the writer thread has been since it started (ms spent writing, ms idle); null without one. */
  utilization(): { activeMs: number; idleMs: number } | null {
    if (!this.worker) return null;
    const u = this.worker.performance.eventLoopUtilization();
    return { activeMs: u.active, idleMs: u.idle };
  }

  /** Waits for batches in flight, then closes the worker's connection and ends the thread. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.upkeepTimer) clearTimeout(this.upkeepTimer);
    this.upkeepTimer = null;
    await this.upkeepRun; // (and the upkeep still owed runs once more, below)
    if (this.upkeep) await this.tidy();
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    await this.handle.mutex.runExclusive(async () => {}); // every batch in flight has been answered
    this.worker = null;
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage({ close: true });
    await exited;
    await this.checkpointer?.close();
    this.checkpointer = null;
    // the caller's connection (still open for Prisma) checkpoints for itself again
    if (this.handle.db.open) this.handle.db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  }

  /** The checkpoint thread's count of checkpoints and frames copied (null before the writer thread starts). */
  checkpoints(): Promise<{ runs: number; frames: number }> | null {
    return this.checkpointer?.stats() ?? null;
  }
}
