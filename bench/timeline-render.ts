// npm run bench:timeline (tsx bench/timeline-render.ts) — the run timeline with 10,000
// transitions in Chromium: time until the Gantt is drawn, then frame times while scrubbing
// (BENCH_STEPS arrow-key steps, then a jump to the start and to the end), measured in the page
// with requestAnimationFrame. Needs a production build (`npm run build`) and Debian's chromium.
//
// Data: one conversation run written with raw SQL: BENCH_TRANSITIONS (default 10,000)
// transitions one second apart, moving through the stages (with a message event inside a stage
// every third step), so the Gantt has seven lanes and thousands of bars and ticks.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "@playwright/test";
import Database from "better-sqlite3";
import { migrateDatabase } from "../lib/db/migrations";
import { sqliteDate } from "../lib/db/sqlite";
import { CHROMIUM_ARGS } from "../e2e/suite-env";

const N = Number(process.env.BENCH_TRANSITIONS ?? 10_000);
const STEPS = Number(process.env.BENCH_STEPS ?? 200);
const PORT = Number(process.env.BENCH_PORT ?? 3131);
const CYCLE = ["PLANNING", "READING", "ANALYSIS", "EXECUTION", "VERIFICATION", "EXECUTION", "READING"];

async function seed(file: string) {
  await migrateDatabase(`file:${file}`);
  const db = new Database(file);
  const t0 = Date.UTC(2026, 10, 1);
  const id = "bench-timeline-run";
  const ins = db.prepare(`INSERT INTO "Transition" ("runId","seq","from","to","event","reason","at","durationMs","payload") VALUES (?,?,?,?,?,?,?,?,?)`);
  let state = "INITIAL";
  db.transaction(() => {
    ins.run(id, 1, "[]", '["INITIAL"]', "xstate.init", "run started", sqliteDate(t0), 0, "{}");
    for (let seq = 2; seq <= N; seq++) {
      const at = sqliteDate(t0 + seq * 1_000);
      if (seq % 3 === 0) {
        ins.run(id, seq, JSON.stringify([state]), JSON.stringify([state]), "MESSAGE", "message scored by the stage detector", at, 0, '{"text":"…"}');
        continue;
      }
      const next = CYCLE[seq % CYCLE.length]!;
      const to = next === state ? "VERIFICATION" : next;
      ins.run(id, seq, JSON.stringify([state]), JSON.stringify([to]), "TRANSITION", "stage rules passed", at, 1_000, JSON.stringify({ to, edge: { source: state, targets: [to] } }));
      state = to;
    }
    db.prepare(
      `INSERT INTO "Run" ("id","workflow","status","state","input","output","error","entered","version","seq","parentId","createdAt","updatedAt","finishedAt") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
    ).run(id, "conversation", "completed", JSON.stringify([state]), "{}", null, null, "{}", N, N, null, sqliteDate(t0), sqliteDate(t0 + N * 1_000), sqliteDate(t0 + N * 1_000));
    db.prepare(`INSERT INTO "Snapshot" ("runId","seq","first","snapshot","context","timers","at") VALUES (?,?,?,'{}','{}','[]',?)`).run(id, N, N, sqliteDate(t0 + N * 1_000));
  })();
  db.close();
  return id;
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const p = (f: number) => s[Math.min(s.length - 1, Math.floor(f * s.length))] ?? 0;
  return `p50 ${p(0.5).toFixed(1)} ms · p95 ${p(0.95).toFixed(1)} ms · max ${(s.at(-1) ?? 0).toFixed(1)} ms (${s.length} samples)`;
};

async function main() {
  if (!fs.existsSync(".next/BUILD_ID")) throw new Error("no production build: run `npm run build` first");
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-bench-timeline-"));
  const file = path.join(dir, "timeline.db");
  const id = await seed(file);
  const server = spawn(process.execPath, ["scripts/start.mjs"], { env: { ...process.env, PORT: String(PORT), DATABASE_URL: `file:${file}`, SWITCHYARD_SEED_GUIDE: "0", HOSTNAME: "127.0.0.1" }, stdio: "ignore" });
  const base = `http://127.0.0.1:${PORT}`;
  try {
    for (let i = 0; ; i++) {
      if (i > 240) throw new Error("the server did not start");
      if (await fetch(`${base}/api/health`).then((r) => r.ok, () => false)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const t0 = performance.now();
    await page.goto(`${base}/runs/${id}/timeline`);
    await page.locator("[data-testid=gantt] [data-lane]").first().waitFor();
    const loadMs = performance.now() - t0;
    const bars = await page.locator("[data-testid=gantt] [data-visit]").count();
    // a string, not a function: tsx would wrap a function's inner names in a helper the page lacks
    await page.evaluate(`(() => {
      window.frames_ = [];
      let last = performance.now();
      const tick = (t) => { window.frames_.push(t - last); last = t; requestAnimationFrame(tick); };
      requestAnimationFrame(tick);
    })()`);
    const controls = page.getByTestId("timeline-controls");
    await controls.focus();
    await page.keyboard.press("Home");
    const view = page.getByTestId("run-timeline");
    const cdp = process.env.BENCH_PROFILE ? await page.context().newCDPSession(page) : null;
    if (cdp) {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.start");
    }
    const stepMs: number[] = [];
    for (let i = 0; i < STEPS; i++) {
      const before = await view.getAttribute("data-cursor");
      const s = performance.now();
      await page.keyboard.press("ArrowRight");
      await page.waitForFunction(`document.querySelector("[data-testid=run-timeline]")?.getAttribute("data-cursor") !== ${JSON.stringify(before)}`);
      stepMs.push(performance.now() - s);
    }
    if (cdp) {
      // where a step's time goes: self time per function over the steps above
      const { profile } = (await cdp.send("Profiler.stop")) as { profile: { nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]; samples: number[]; timeDeltas: number[] } };
      const self = new Map<number, number>();
      profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
      const byName = new Map<string, number>();
      for (const n of profile.nodes) {
        const key = `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber}`;
        byName.set(key, (byName.get(key) ?? 0) + (self.get(n.id) ?? 0) / 1000);
      }
      for (const [k, ms] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${ms.toFixed(0).padStart(6)} ms  ${k}`);
    }
    const jumps: number[] = [];
    for (const key of ["End", "Home", "End"]) {
      const s = performance.now();
      await page.keyboard.press(key);
      const want = key === "Home" ? "0" : String(N);
      await page.waitForFunction(`document.querySelector("[data-testid=run-timeline]")?.getAttribute("data-cursor") === "${want}"`);
      jumps.push(performance.now() - s);
    }
    const frames = ((await page.evaluate("window.frames_")) as number[]).slice(1);
    await browser.close();
    console.log(`run timeline with ${N.toLocaleString()} transitions (${bars.toLocaleString()} bars)`);
    console.log(`  page load until the Gantt is drawn: ${loadMs.toFixed(0)} ms`);
    console.log(`  one step (key → cursor moved, diagram replayed): ${stats(stepMs)}`);
    console.log(`  jumps to start / end: ${jumps.map((j) => j.toFixed(0)).join(", ")} ms`);
    console.log(`  frame times while scrubbing: ${stats(frames)}; frames over 50 ms: ${frames.filter((f) => f > 50).length}`);
  } finally {
    server.kill("SIGTERM");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
