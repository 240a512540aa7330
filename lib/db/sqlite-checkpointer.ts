// WAL checkpoints off the write path. SQLite's automatic checkpoint runs inside the commit that
// crosses the threshold: that commit copies every page of the WAL back into the database file
// and waits for two fsyncs, and the batches behind it wait too. Here a thread of its own, with a
// connection of its own, watches the WAL's size and runs a PASSIVE checkpoint (which never blocks
// the writer or readers) once WAL_CHECKPOINT_PAGES frames wait, or a second after the last write
// when fewer do. The connections keep an automatic checkpoint at a higher mark
// (WAL_CHECKPOINT_CAP_PAGES), so the WAL stays bounded if this thread falls behind or is gone.
//
// The WAL's size is read from the wal-index header at the start of the -shm file (SQLite's
// documented file format, https://www.sqlite.org/walformat.html §2.1: mxFrame, the frames in the
// WAL, is a u32 at byte 16 and nBackfill, the frames already checkpointed, a u32 at byte 96, both
// in the machine's byte order): 104 bytes read every 20 ms, no lock taken.
import { Worker } from "node:worker_threads";

/** How often the WAL's size is looked at, and how long a small WAL may wait for its checkpoint. */
export const CHECKPOINT_POLL_MS = 20;
export const CHECKPOINT_IDLE_MS = 1_000;

const THREAD = String.raw`
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const os = require("node:os");
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma("synchronous = " + workerData.synchronous);
db.pragma("wal_autocheckpoint = 0");
const le = os.endianness() === "LE";
const head = Buffer.alloc(104);
let fd = -1, last = Date.now(), seen = -1, runs = 0, frames = 0;
function pending() {
  try {
    if (fd < 0) fd = fs.openSync(workerData.file + "-shm", "r");
    if (fs.readSync(fd, head, 0, 104, 0) < 104) return 0;
  } catch {
    return 0; // no WAL index yet
  }
  const mx = le ? head.readUInt32LE(16) : head.readUInt32BE(16);
  const backfilled = le ? head.readUInt32LE(96) : head.readUInt32BE(96);
  if (mx !== seen) { seen = mx; last = Date.now(); }
  return mx > backfilled ? mx - backfilled : 0;
}
function tick() {
  const n = pending();
  if (n === 0 || (n < workerData.pages && Date.now() - last < workerData.idleMs)) return;
  try {
    const [r] = db.pragma("wal_checkpoint(PASSIVE)");
    runs++;
    frames += Number(r.checkpointed);
  } catch {
    // busy or failing: tried again on a later tick (the connections' own checkpoint is the backstop)
  }
}
const timer = setInterval(tick, workerData.pollMs);
parentPort.on("message", (m) => {
  if (m.stats) parentPort.postMessage({ stats: { runs, frames } });
  if (m.close) {
    clearInterval(timer);
    if (fd >= 0) fs.closeSync(fd);
    db.close();
    parentPort.close();
  }
});`;

export interface CheckpointerOptions {
  /** better-sqlite3's path, for the thread's require */
  driver: string;
  file: string;
  synchronous: "NORMAL" | "FULL";
  /** checkpoint once this many frames wait */
  pages: number;
}

export class Checkpointer {
  private worker: Worker;
  private exited: Promise<void>;
  private gone = false;

  constructor(o: CheckpointerOptions) {
    this.worker = new Worker(THREAD, { eval: true, workerData: { ...o, pollMs: CHECKPOINT_POLL_MS, idleMs: CHECKPOINT_IDLE_MS } });
    this.worker.unref(); // never what keeps a process alive
    this.exited = new Promise<void>((resolve) => this.worker.once("exit", () => resolve())).then(() => {
      this.gone = true;
    });
    // a thread that fails (the file gone, a driver error) leaves the connections' own checkpoint
    // at WAL_CHECKPOINT_CAP_PAGES to bound the WAL; said once, never thrown at the process
    this.worker.on("error", (e) => console.warn(`[sqlite] the checkpoint thread stopped: ${e instanceof Error ? e.message : String(e)}; the connections checkpoint for themselves`));
  }

  /** How many checkpoints this thread has run, and the frames they copied (zeros once it has stopped). */
  stats(): Promise<{ runs: number; frames: number }> {
    if (this.gone) return Promise.resolve({ runs: 0, frames: 0 });
    return new Promise((resolve) => {
      const on = (m: { stats?: { runs: number; frames: number } }) => {
        if (!m.stats) return;
        this.worker.off("message", on);
        resolve(m.stats);
      };
      this.worker.on("message", on);
      this.worker.postMessage({ stats: true });
    });
  }

  async close(): Promise<void> {
    if (!this.gone) this.worker.postMessage({ close: true });
    await this.exited;
  }
}
