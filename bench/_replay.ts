import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { migrateDatabase } from "../lib/db/migrations";
import { ensureRunText, REINDEX_STALE } from "../lib/engine/store/sqlite-text";
import { WRITES } from "../lib/engine/store/sqlite";
const batches = JSON.parse(fs.readFileSync("/tmp/batches.json", "utf8"));
const names = Object.keys(WRITES);
const variant = process.argv[2] ?? "base";
const base = process.argv[3] ?? os.tmpdir();
const dir = fs.mkdtempSync(path.join(base, "rp-"));
const file = `${dir}/r.db`;
await migrateDatabase(`file:${file}`);
const db = new Database(file);
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.pragma(`wal_autocheckpoint = ${variant.includes("nockpt") ? 0 : 8000}`);
if (variant.includes("cache")) db.pragma("cache_size = -65536");
if (variant.includes("mmap")) db.pragma("mmap_size = 268435456");
if (variant.includes("noidx")) db.exec(`DROP INDEX "Run_status_updatedAt_idx"`);
ensureRunText(db);
const skip = new Set<number>();
if (variant.includes("nosnap")) skip.add(names.indexOf("insertSnapshot"));
if (variant.includes("notrans")) skip.add(names.indexOf("insertTransition"));
if (variant.includes("notimer")) { skip.add(names.indexOf("setTimer")); skip.add(names.indexOf("clearTimer")); }
const W2 = { ...WRITES } as Record<string, string>;
if (variant.includes("split")) W2.insertSnapshot = `INSERT OR REPLACE INTO "Snapshot" ("runId","seq","first","snapshot","context","timers","at") VALUES (?,?,?,?,?,?,?)`;
const stmts = Object.values(W2).map((sql) => db.prepare(sql));
const iUpd = names.indexOf("updateRun"), iIns = names.indexOf("insertRun"), iSnap = names.indexOf("insertSnapshot");
if (variant.includes("split")) for (const b of batches) if (b) for (const it of b) {
  let snap: unknown = null, ctx: unknown = null;
  for (const op of it.ops) {
    if (op[0] === iUpd) { snap = op[1][2]; ctx = op[1][3]; op[1][2] = "{}"; op[1][3] = "null"; }
    if (op[0] === iIns) { snap = op[1][4]; ctx = op[1][5]; op[1][4] = "{}"; op[1][5] = "null"; }
    if (op[0] === iSnap) { const [seq, first, timers, at, id] = op[1]; op[1] = [id, seq, first, snap, ctx, timers, at]; }
  }
}
const upkeep = REINDEX_STALE.map((sql) => db.prepare(sql));
const tx = db.transaction((batch: any) => {
  if (batch === null) for (const st of upkeep) st.run();
  else for (const item of batch) for (const [i, args] of item.ops) if (!skip.has(i)) stmts[i].run(...args);
});
const c0 = process.cpuUsage();
const t0 = performance.now();
for (const b of batches) tx.immediate(b);
const s = (performance.now() - t0) / 1000;
const c = process.cpuUsage(c0);
db.close();
const size = fs.statSync(file).size;
fs.rmSync(dir, { recursive: true, force: true });
console.log(variant.padEnd(20), (19600 / s).toFixed(0).padStart(6), "t/s", s.toFixed(2), "s  user", (c.user / 1e6).toFixed(2), "sys", (c.system / 1e6).toFixed(2), "db MB", (size / 1e6).toFixed(0));
