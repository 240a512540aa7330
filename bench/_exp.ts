import fs from "node:fs"; import os from "node:os"; import path from "node:path";
import Database from "better-sqlite3";
import { migrateDatabase } from "../lib/db/migrations";
import { sqliteDate } from "../lib/db/sqlite";
import { ensureRunText } from "../lib/engine/store/sqlite-text";
import type { CommitItem } from "../lib/engine/store/types";
import { createRuntime } from "../lib/runtime";
import { instantEffects } from "./instant-effects";
import { swissCycles } from "./workload";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "exp-"));
const url = `file:${dir}/e.db`;
await migrateDatabase(url);
const rt = await createRuntime({ url, env: {} as NodeJS.ProcessEnv, outboxIntervalMs: 0, alerts: { start: false }, effects: () => ({ "swiss-army": instantEffects() }) });
const batches: CommitItem[][] = [];
rt.engine.committer.onBatch = (items) => batches.push(items);
await swissCycles(rt.engine, { runs: 400, cycles: 8 });
await rt.close();
const N = batches.reduce((n, b) => n + b.reduce((m, i) => m + i.transitions.length, 0), 0);
const j = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
async function variant(name: string, o: { snapshot?: boolean; dropIdx?: boolean; fts?: boolean; pragmas?: string[]; runCtx?: boolean; noTrIdx?: boolean; ftsDDL?: string[]; smallSnap?: boolean; pre?: string[] }) {
  const u = `file:${dir}/${name}.db`; await migrateDatabase(u);
  const db = new Database(`${dir}/${name}.db`); for (const p of o.pre ?? []) { db.pragma(p); db.exec("VACUUM"); }
  db.pragma("journal_mode = WAL"); db.pragma("synchronous = NORMAL");
  for (const p of o.pragmas ?? []) db.pragma(p);
  if (o.fts !== false && !o.ftsDDL) ensureRunText(db);
  if (o.ftsDDL) for (const q of o.ftsDDL) db.exec(q);
  if (o.dropIdx) for (const r of db.prepare(`SELECT name FROM sqlite_master WHERE type='index' AND tbl_name='Run' AND sql IS NOT NULL`).all() as {name:string}[]) db.exec(`DROP INDEX "${r.name}"`);
  if (o.noTrIdx) db.exec(`DROP INDEX IF EXISTS "Transition_at_idx"`);
  const s = {
    insertRun: db.prepare(`INSERT INTO "Run" ("id","workflow","status","state","snapshot","context","input","output","error","entered","version","seq","parentId","retries","waitingSince","failedStates","createdAt","updatedAt","finishedAt") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`),
    updateRun: db.prepare(`UPDATE "Run" SET "status"=?,"state"=?,"snapshot"=?,"context"=?,"output"=?,"error"=?,"entered"=?,"version"=?,"seq"=?,"retries"=?,"waitingSince"=?,"failedStates"=?,"updatedAt"=?,"finishedAt"=? WHERE "id"=? AND "version"=?`),
    insertSnapshot: db.prepare(`INSERT OR REPLACE INTO "Snapshot" ("runId","seq","first","snapshot","context","timers","at") VALUES (?,?,?,?,?,?,?)`),
    insertTransition: db.prepare(`INSERT INTO "Transition" ("runId","seq","from","to","event","reason","at","durationMs","payload") VALUES (?,?,?,?,?,?,?,?,?)`),
  };
  const tx = db.transaction((b: CommitItem[]) => { for (const item of b) { const r = item.run; const at = sqliteDate(r.updatedAt);
    const ctx = o.runCtx === false ? "{}" : j(r.context);
    if (item.expectVersion === null) s.insertRun.run(r.id, r.workflow, r.status, j(r.state), j(r.snapshot), ctx, j(r.input), j(r.output), j(r.error), j(r.entered), r.version, r.seq, r.parentId, r.retries, null, r.failedStates, sqliteDate(r.createdAt), at, null);
    else s.updateRun.run(r.status, j(r.state), j(r.snapshot), ctx, j(r.output), j(r.error), j(r.entered), r.version, r.seq, r.retries, null, r.failedStates, at, null, r.id, item.expectVersion);
    if (o.snapshot !== false && item.transitions.length) s.insertSnapshot.run(r.id, r.seq, item.transitions[0].seq, j(r.snapshot), o.smallSnap ? j(r.context)!.slice(0, 400) : j(r.context), "[]", at);
    for (const t of item.transitions) s.insertTransition.run(t.runId, t.seq, j(t.from), j(t.to), t.event, t.reason, sqliteDate(t.at), t.durationMs, j(t.payload));
  } });
  const t0 = performance.now(); for (const b of batches) tx.immediate(b); const sec = (performance.now() - t0) / 1000;
  db.close();
  console.log(name.padEnd(14), Math.round(N / sec), "t/s", sec.toFixed(2), "s");
}
await variant("base", {});
await variant("smallsnap", { smallSnap: true });
await variant("nofts", { fts: false });
await variant("nofts_small", { fts: false, smallSnap: true });
await variant("nofts_nosnap", { fts: false, snapshot: false });
await variant("nofts_small_pg8k", { fts: false, smallSnap: true, pre: ["page_size = 8192"] });
await variant("nofts_pg8k", { fts: false, pre: ["page_size = 8192"] });
let changes = 0, items = 0, outLen = 0; const last = new Map<string, string>();
for (const b of batches) for (const i of b) { items++; const o = j(i.run.output) ?? ""; if (last.get(i.run.id) !== o) { changes++; outLen += o.length; } last.set(i.run.id, o); }
console.log({ items, changes, avgOut: outLen / changes, inputLen: j(batches[0][0].run.input)?.length });
