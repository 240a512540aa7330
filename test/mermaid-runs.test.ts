// Every Mermaid example (test/fixtures/mermaid and the seed diagrams) through the API: defining it
// never answers 5xx, and a run of each imported one never sits `running` with nothing in flight
// (a stage machine has nothing in flight: it ends, or waits for a TRANSITION it names in `next`),
// and never lists a stage among its current ones that the machine has left.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Runtime } from "../lib/runtime";
import { tempDbUrl } from "./helpers";
import { flowApi, params, post, type Handler } from "./support/flow-api";

const url = tempDbUrl("mermaid-runs");
process.env.DATABASE_URL = url;
process.env.SWITCHYARD_SEED_GUIDE = "0";

let workflows: { POST: Handler };
let exporter: { GET: Handler };
let runs: { POST: Handler };
let events: { POST: Handler };
let rt: Runtime;

const dir = (d: string) => path.join(import.meta.dirname, "fixtures", d);
const FIXTURES = [
  ...fs.readdirSync(dir("mermaid")).map((f) => ({ name: f.replace(/\.mmd$/, ""), text: fs.readFileSync(path.join(dir("mermaid"), f), "utf8") })),
  ...fs.readdirSync(dir("seed-diagrams")).map((f) => ({ name: `seed-${f.replace(/\.mmd$/, "")}`, text: fs.readFileSync(path.join(dir("seed-diagrams"), f), "utf8") })),
];
/** the XState key of a stage (lib/flows/machine.ts) */
const key = (s: string) => (/[.#\\%]/.test(s) ? s.replace(/[.#\\%]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`) : s);

beforeAll(async () => {
  ({ workflows, exporter, runs, events, rt } = await flowApi(url));
});
afterAll(async () => {
  await rt?.close();
});

describe("Mermaid's examples through the API and the engine", () => {
  it.each(FIXTURES)("$name: defined without a 5xx; its runs end or wait for a named move", async ({ name, text }) => {
    const id = `mm-${name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`.slice(0, 60).replace(/-+$/, "");
    const created = await workflows.POST(post("/api/workflows", { id, mermaid: text }));
    // defined (201), or refused with a reason (422: two top-level starts)
    expect([201, 422], await created.clone().text()).toContain(created.status);
    if (created.status === 422) return;
    for (const format of ["mermaid", "json"]) {
      const res = await exporter.GET(new Request(`http://test/api/workflows/${id}/export?format=${format}`), params({ id }));
      expect(res.status).toBe(200);
    }
    // walk a few runs along different valid moves
    for (let pick = 0; pick < 3; pick++) {
      const started = await runs.POST(post("/api/runs", { workflow: id, input: {} }));
      expect(started.status).toBe(201);
      const runId = ((await started.json()) as { id: string }).id;
      for (let step = 0; step < 25; step++) {
        const run = await rt.engine.getRun(runId);
        const out = run.output as { stage: string[]; next: string[] };
        expect(run.status, `${name}: ${run.state.join(", ")}`).not.toBe("running");
        // every current stage is a state the machine is in
        for (const s of out.stage) expect(run.state.some((p) => p.split(".").includes(key(s))), `${name}: ${s} in ${run.state}`).toBe(true);
        if (run.status !== "waiting") {
          expect(run.status).toBe("completed");
          break;
        }
        expect(out.next.length, `${name}: waiting in ${run.state} with no move`).toBeGreaterThan(0);
        const to = out.next[(step + pick) % out.next.length]!;
        const moved = await events.POST(post(`/api/runs/${runId}/events`, { type: "TRANSITION", to }), params({ id: runId }));
        expect(moved.status, `${name}: move to ${to}: ${await moved.clone().text()}`).toBe(200);
      }
    }
  });
});
