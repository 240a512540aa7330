// Evaluations from review decisions (guide 19 §4), on SQLite and PostgreSQL. Seven decisions are
// seeded by people on six runs (approve, edit, reject, and one custom decision); a candidate
// definition (held in memory, never registered) changes the prompt, and a model that writes
// deterministically answers "with care" differently for two topics. The report's numbers equal
// the hand count below; nothing is posted (no http step, no webhook) while it runs; a candidate
// whose review state is renamed never reaches it: every case disagrees, reason "path".
//
// Hand count (state REVIEW, text equality = token-set similarity ≥ 0.8):
//   owls  approve  candidate writes "A careful post about owls written with care"   ✗ differs
//   bats  approve  "A post about bats" as approved                                   ✓
//   cats  edit     "A post about cats" vs edited "A post about cats, shorter" (4/5)   ✓
//   dogs  edit     "A post about dogs" vs edited "Dogs are loyal friends"             ✗ differs
//   emus  reject   the candidate shows something else than the rejected draft        ✓
//   emus  approve  (after the feedback) "A careful post …" vs the approved one (6/10) ✗ differs
//   gnus  reject   the candidate shows the rejected draft again                       ✗ unchanged
//   gnus  escalate a custom decision: not a case, listed as skipped
//   → 7 cases, 3 agree: agreement 3/7
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveUserWorkflow } from "../lib/flows/store";
import { getEval, startEval } from "../lib/change/evals";
import { registerUserWorkflow, userVersions } from "../lib/machines/registry";
import { flush } from "./helpers";
import { CountingReceiver, postgresNode, sqliteNode, WordModel, type Node } from "./support/change";

export const EVAL_V1 = `id: eval-post
initial_stage: DRAFT
stages: [DRAFT, REVIEW, PUBLISH, DONE, FAILED, HELD]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, PUBLISH, HELD], PUBLISH: [DONE, FAILED], DONE: [], FAILED: [], HELD: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a post about {{input.topic}}. {{review.feedback}}" }
    next: REVIEW
  REVIEW:
    review: { prompt: "Publish this post?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject, edit, escalate] }
    on: { approve: PUBLISH, edit: PUBLISH, reject: DRAFT, escalate: HELD }
  PUBLISH:
    http: { url: "{{input.publish_url}}", method: POST, body: { text: "{{steps.DRAFT.output}}" } }
    next: DONE
    on_error: FAILED
`;
export const EVAL_CANDIDATE = EVAL_V1.replace("Write a post about {{input.topic}}.", "Write a post about {{input.topic}} with care.");

/** v1 writes "A post about <topic>"; "with care" changes owls and emus only; feedback is appended */
export const evalWriter = (prompt: string) => {
  const topic = /about (\w+)/.exec(prompt)?.[1] ?? "?";
  const feedback = prompt.split(". ").slice(1).join(". ").trim();
  const careful = prompt.includes("with care") && (topic === "owls" || topic === "emus");
  const base = careful ? `A careful post about ${topic} written with care` : `A post about ${topic}`;
  return feedback ? `${base} — ${feedback}` : base;
};

type Decide = { decision: string; feedback?: string; data?: Record<string, unknown> };
/** the seeded decisions, per topic, in order */
export const SEEDED: Record<string, Decide[]> = {
  owls: [{ decision: "approve" }],
  bats: [{ decision: "approve" }],
  cats: [{ decision: "edit", data: { edited: "A post about cats, shorter" } }],
  dogs: [{ decision: "edit", data: { edited: "Dogs are loyal friends" } }],
  emus: [{ decision: "reject", feedback: "More facts" }, { decision: "approve" }],
  gnus: [{ decision: "reject", feedback: "Shorter" }, { decision: "escalate" }],
};

function behaviour(name: string, make: () => Promise<Node | null>) {
  const wf = `eval-post-${name.toLowerCase()}`;
  describe(`evaluations from review decisions (${name})`, () => {
    let node: Node | null = null;
    let receiver: CountingReceiver;
    const sources: Record<string, string> = {};
    const rt = () => node!.rt;
    async function pendingReview(runId: string) {
      for (let i = 0; i < 200; i++) {
        await flush();
        const [r] = await rt().store.listReviews({ runId, status: "pending" });
        if (r) return r;
        await new Promise((res) => setTimeout(res, 20));
      }
      throw new Error(`no pending review for ${runId}`);
    }

    beforeAll(async () => {
      receiver = await new CountingReceiver().start();
      node = await make();
      if (!node) return;
      await saveUserWorkflow(rt().db, "yaml", EVAL_V1.replace("id: eval-post", `id: ${wf}`));
      await rt().webhooks.createWebhook({ workflow: wf, url: `${receiver.url}/hooks`, secret: "a-secret-of-sixteen-chars", events: ["on_transition"] });
      for (const [topic, decisions] of Object.entries(SEEDED)) {
        const { run } = await rt().engine.start(wf, { topic, publish_url: `${receiver.url}/posts` });
        for (const d of decisions) await rt().engine.decide((await pendingReview(run.id)).id, { ...d, reviewer: "ana" });
        await rt().engine.waitFor(run.id, (r) => r.status === "completed", 30_000);
        sources[topic] = run.id;
      }
      await flush();
      await rt().webhooks.idle();
    }, 180_000);
    afterAll(async () => {
      await node?.close();
      await receiver?.close();
    }, 60_000);

    it("a candidate definition: the report's numbers equal the hand count, and nothing is posted", async (ctx) => {
      if (!node) return ctx.skip();
      const posts = receiver.requests.length;
      const versions = userVersions(wf);
      const started = await startEval(rt(), { workflow: wf, candidate: { definition: { yaml: EVAL_CANDIDATE.replace("id: eval-post", `id: ${wf}`) } }, cases: { from: "decided-reviews" } });
      expect((await getEval(rt(), started.id)).status).toBe("running");
      // held in memory for the evaluation only: never registered
      expect(userVersions(wf)).toEqual(versions);
      const report = await started.done;
      expect(report).toMatchObject({ status: "done", workflow: wf, candidate: { version: null }, cases: 7, done: 7 });
      expect(report.byState).toEqual({ REVIEW: { cases: 7, agree: 3, agreement: 3 / 7 } });
      expect(report.agreement).toBe(3 / 7);
      const regressions = report.regressions.map((r) => [Object.keys(sources).find((t) => sources[t] === r.runId), r.decision, r.reason]).sort();
      expect(regressions).toEqual([["dogs", "edit", "differs"], ["emus", "approve", "differs"], ["gnus", "reject", "unchanged"], ["owls", "approve", "differs"]]);
      expect(report.skipped).toEqual([{ runId: sources.gnus, state: "REVIEW", decision: "escalate" }]);
      for (const r of report.regressions) expect(r.replayId).toEqual(expect.any(String));
      expect(report.equality.text).toMatch(/token-set similarity ≥ 0\.8/);
      // the candidate drafted for real: "Write a post about <topic> with care." and its reply, once per draft (8 drafts)
      expect(report.tokens).toBeGreaterThan(0);
      expect(await getEval(rt(), started.id)).toEqual(report);
      // nothing went out: the receiver saw no post and no webhook, no delivery was queued for the candidate's runs
      await flush();
      await rt().webhooks.idle();
      expect(receiver.requests.length).toBe(posts);
      const replayIds = (await rt().store.listRuns({ replays: true, limit: 100 })).filter((r) => r.replay?.eval === started.id).map((r) => r.id);
      expect(replayIds).toHaveLength(6);
      expect(await rt().db.webhookDelivery.count({ where: { runId: { in: replayIds } } })).toBe(0);
      // decisions the evaluation's runs made are not cases of the next one
      expect(await rt().db.review.count({ where: { runId: { in: replayIds }, replayedFrom: null, status: "decided" } })).toBe(0);
    }, 120_000);

    it("a candidate that renamed its review never reaches it: every case disagrees (path)", async (ctx) => {
      if (!node) return ctx.skip();
      const renamed = EVAL_V1.replace("id: eval-post", `id: ${wf}`).replaceAll("REVIEW", "CHECK");
      const started = await startEval(rt(), { workflow: wf, candidate: { definition: { yaml: renamed } }, cases: { from: "decided-reviews", runIds: [sources.owls!, sources.emus!] } });
      const report = await started.done;
      expect(report).toMatchObject({ cases: 3, done: 3, agreement: 0, byState: { REVIEW: { cases: 3, agree: 0, agreement: 0 } } });
      expect(report.regressions.map((r) => r.reason)).toEqual(["path", "path", "path"]);
      // its runs were stopped where they waited for a decision nobody recorded; none waits in the queue
      expect((await rt().store.listReviews({ status: "pending" })).length).toBe(0);
    }, 120_000);

    it("a registered version as the candidate; limit and runIds pick the cases", async (ctx) => {
      if (!node) return ctx.skip();
      const saved = await saveUserWorkflow(rt().db, "yaml", EVAL_CANDIDATE.replace("id: eval-post", `id: ${wf}`));
      const report = await (await startEval(rt(), { workflow: wf, candidate: { version: saved.version }, cases: { from: "decided-reviews", runIds: [sources.bats!, sources.owls!] } })).done;
      expect(report).toMatchObject({ candidate: { version: saved.version }, cases: 2, done: 2, agreement: 0.5 });
      const one = await (await startEval(rt(), { workflow: wf, candidate: { version: 1 }, cases: { from: "decided-reviews", limit: 1 } })).done;
      expect(one.cases + one.skipped.length).toBe(1);
    }, 120_000);

    it("npm run eval: prints the per-state table, links each regression to the compare view, exits 1 below --min-agreement", async (ctx) => {
      if (!node || name !== "SQLite") return ctx.skip();
      // the route handlers behind a real HTTP server, as `npm start` serves them
      (globalThis as Record<symbol, unknown>)[Symbol.for("switchyard.runtime")] = Promise.resolve(rt());
      const evals = (await import("../app/api/evals/route")) as { POST: (r: Request) => Promise<Response> };
      const one = (await import("../app/api/evals/[id]/route")) as { GET: (r: Request, c: { params: Promise<{ id: string }> }) => Promise<Response> };
      const server = http.createServer((req, res) => {
        let body = "";
        req.on("data", (c) => (body += c));
        req.on("end", async () => {
          const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, body: req.method === "POST" ? body : undefined });
          const m = /^\/api\/evals\/([^/]+)$/.exec(req.url ?? "");
          const answer = req.url === "/api/evals" && req.method === "POST" ? await evals.POST(request) : m ? await one.GET(request, { params: Promise.resolve({ id: m[1]! }) }) : new Response("no", { status: 404 });
          res.writeHead(answer.status, Object.fromEntries(answer.headers));
          res.end(await answer.text());
        });
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const file = join(tmpdir(), `candidate-${process.pid}.yaml`);
      writeFileSync(file, EVAL_CANDIDATE.replace("id: eval-post", `id: ${wf}`));
      const cli = (min: string) =>
        new Promise<{ code: number; out: string }>((resolve) =>
          // node with tsx as its loader (what `npm run eval` runs, minus the tsx command's own parent process)
          execFile(process.execPath, ["--import", "tsx", "scripts/eval.ts", "--", "--url", url, "--workflow", wf, "--file", file, "--min-agreement", min], { timeout: 90_000 }, (err, stdout, stderr) =>
            resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
          ),
        );
      try {
        const low = await cli("0.9");
        expect(low.code).toBe(1);
        expect(low.out).toMatch(/REVIEW\s+7\s+3\s+42\.9%/);
        expect(low.out).toContain("agreement 42.9% is below --min-agreement 90.0%");
        expect(low.out).toContain(`${url}/runs/${sources.owls}/compare/`);
        expect(low.out).toContain("skipped (not cases): escalate at REVIEW");
        const pass = await cli("0.4");
        expect(pass.code).toBe(0);
        expect(pass.out).toContain("pass");
      } finally {
        server.close();
      }
    }, 180_000);

    it("bad requests: unknown workflow 404, an invalid or foreign candidate 422", async (ctx) => {
      if (!node) return ctx.skip();
      await expect(startEval(rt(), { workflow: "nope", candidate: {}, cases: { from: "decided-reviews" } })).rejects.toMatchObject({ status: 404 });
      await expect(startEval(rt(), { workflow: wf, candidate: { definition: { yaml: "id: x\nstages: [" } }, cases: { from: "decided-reviews" } })).rejects.toMatchObject({ status: 422 });
      await expect(startEval(rt(), { workflow: wf, candidate: { definition: { yaml: EVAL_V1 } }, cases: { from: "decided-reviews" } })).rejects.toMatchObject({ status: 422 });
      await expect(startEval(rt(), { workflow: wf, candidate: { version: 99 }, cases: { from: "decided-reviews" } })).rejects.toMatchObject({ status: 404 });
      void registerUserWorkflow;
    });
  });
}

behaviour("SQLite", () => sqliteNode(undefined, undefined, new WordModel(evalWriter)));
behaviour("PostgreSQL", () => postgresNode("sy_evals", undefined, new WordModel(evalWriter)));
