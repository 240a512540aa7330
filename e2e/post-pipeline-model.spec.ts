// The post pipeline (docs/guide/16-external-workers.md) in the browser against a model: it runs on a server of its own whose
// model endpoint (OPENAI_BASE_URL) is a local OpenAI-compatible server started here, which
// answers every chat completion with a numbered draft quoting the prompt it got and records
// every prompt. The model's draft, word for word, is in the run page's Steps view; a reviewer
// rejects it from the queue with feedback, and the next DRAFT's prompt sent to the model carries
// that feedback; two different reviewers (each in their own browser, the name remembered in
// localStorage) approve the new draft; the local receiver gets the post exactly once; a worker
// completes NOTIFY through the task API; the run completes.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { claimTask, completeTask, expectWorkflowSaved, openInInbox, ownPort, shot } from "./helpers";
import { POST_PIPELINE, Receiver } from "../test/support/post-pipeline";

const PORT = ownPort(3);
const BASE = `http://127.0.0.1:${PORT}`;
const MODEL = "fake-post-writer";

type Message = { role: string; content: string };
/** the user prompts the model received, one entry per chat completion */
const prompts: string[] = [];
/** the drafts it answered with, in order */
const drafts: string[] = [];

/** A minimal OpenAI-compatible chat-completions server (JSON and server-sent events). */
function fakeModelServer(): http.Server {
  return http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.split("?")[0]!.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" });
        return res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: "invalid_request_error", param: null, code: null } }));
      }
      const body = JSON.parse(raw) as { model?: string; stream?: boolean; messages: Message[]; stream_options?: { include_usage?: boolean } };
      const prompt = body.messages.filter((m) => m.role === "user").map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
      prompts.push(prompt);
      const content = `Model draft ${prompts.length}: ${prompt.trim()} Kettles hum at dawn.`;
      drafts.push(content);
      const id = `chatcmpl-e2e${prompts.length}`;
      const created = Math.floor(Date.now() / 1000);
      const model = body.model ?? MODEL;
      const usage = { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: Math.ceil(content.length / 4), total_tokens: Math.ceil(prompt.length / 4) + Math.ceil(content.length / 4) };
      if (!body.stream) {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(JSON.stringify({ id, object: "chat.completion", created, model, choices: [{ index: 0, message: { role: "assistant", content, refusal: null }, logprobs: null, finish_reason: "stop" }], usage }));
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const chunk = (delta: object, finish_reason: string | null) => ({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, logprobs: null, finish_reason }] });
      const send = (e: object | string) => res.write(`data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`);
      send(chunk({ role: "assistant", content: "" }, null));
      for (const piece of content.split(/(?<= )/)) send(chunk({ content: piece }, null));
      send(chunk({}, "stop"));
      if (body.stream_options?.include_usage) send({ id, object: "chat.completion.chunk", created, model, choices: [], usage });
      send("[DONE]");
      res.end();
    });
  });
}

let model: http.Server;
let receiver: Receiver;
let server: ChildProcess;
let dir: string;

test.describe("post pipeline with a model (own server)", () => {
  test.skip(process.env.E2E_DB === "postgres", "runs its own SQLite server with a model endpoint; the PostgreSQL suite runs e2e/post-pipeline.spec.ts");
  test.use({ baseURL: BASE });

  test.beforeAll(async () => {
    test.setTimeout(150_000);
    model = fakeModelServer();
    await new Promise<void>((r) => model.listen(0, "127.0.0.1", r));
    const modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`;
    receiver = await new Receiver().start();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-post-model-"));
    const env = {
      ...process.env,
      PORT: String(PORT),
      HOSTNAME: "127.0.0.1",
      DATABASE_URL: `file:${path.join(dir, "post-model.db")}`,
      OPENAI_BASE_URL: modelUrl,
      OPENAI_API_KEY: "sk-e2e-local",
      OPENAI_MODEL: MODEL,
      SWITCHYARD_LLM_BACKOFF_MS: "50",
      NEXT_TELEMETRY_DISABLED: "1",
    };
    server = spawn(process.execPath, ["scripts/start.mjs"], { env, stdio: "ignore", detached: true });
    for (let i = 0; i < 1200; i++) {
      if (await fetch(`${BASE}/api/health`).then((r) => r.ok, () => false)) return;
      if (server.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error("the post-pipeline model server did not start");
  });

  test.afterAll(async () => {
    if (server?.pid) {
      const gone = server.exitCode === null && server.signalCode === null ? new Promise((r) => server.once("exit", r)) : null;
      process.kill(-server.pid, "SIGKILL");
      await gone;
    }
    await receiver?.close();
    if (model) {
      model.closeAllConnections();
      await new Promise((r) => model.close(r));
    }
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A reviewer's own browser, at 1440×900. */
  async function reviewer(browser: Browser) {
    const context = await browser.newContext({ baseURL: BASE, viewport: { width: 1440, height: 900 } });
    return { context, page: await context.newPage() };
  }

  async function queueItem(page: Page, runId: string) {
    await page.goto("/review");
    await expect(page.locator(`[data-testid=review-row][data-run="${runId}"]`)).toBeVisible({ timeout: 20_000 });
    return openInInbox(page, runId);
  }

  test("the model drafts, a reject's feedback reaches the next prompt, two people approve, the post is published once, a worker completes the run", async ({ page, browser, request }) => {
    test.setTimeout(150_000);
    await page.setViewportSize({ width: 1440, height: 900 });

    // the workflow and a run, by API
    const defined = await request.post("/api/workflows", { data: { yaml: POST_PIPELINE } });
    expectWorkflowSaved(defined.status(), await defined.text());
    const started = await request.post("/api/runs", { data: { workflow: "post-pipeline", input: { topic: "solar kettles", publish_url: receiver.url } } });
    expect(started.status(), await started.text()).toBe(201);
    const { id: runId } = (await started.json()) as { id: string };

    // the model's first draft, word for word, in the Steps view
    await page.goto(`/runs/${runId}`);
    const runPage = page.getByTestId("run-page");
    await expect(runPage).toHaveAttribute("data-state", "REVIEW", { timeout: 30_000 });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain("Write a short post about solar kettles.");
    expect(prompts[0]).not.toContain("Mention the moon.");
    const first = drafts[0]!;
    const steps = page.getByTestId("run-steps");
    const draft = steps.locator('[data-testid=step][data-stage="DRAFT"]');
    await expect(draft).toHaveAttribute("data-status", "done");
    await expect(draft.getByTestId("step-kind")).toHaveText("model call");
    await expect(draft.getByTestId("step-output")).toContainText(first);
    await expect(draft.getByTestId("step-meta")).toContainText(MODEL);
    await expect(draft.getByTestId("step-meta")).not.toContainText("offline engine");

    // Ana rejects from the queue, with feedback
    const ana = await reviewer(browser);
    let item = await queueItem(ana.page, runId);
    await expect(item.getByTestId("review-shown")).toContainText(first);
    await ana.page.getByLabel("Deciding as").fill("Ana");
    await item.getByLabel("Note").fill("Mention the moon.");
    await item.locator('[data-decision="reject"]').click();

    // the next DRAFT: the model is asked again, with the feedback in its prompt
    await expect.poll(() => prompts.length, { timeout: 30_000 }).toBe(2);
    expect(prompts[1]).toContain("Write a short post about solar kettles.");
    expect(prompts[1]).toContain("Mention the moon.");
    const second = drafts[1]!;
    expect(second).toContain("Mention the moon.");
    await expect(draft.getByTestId("step-output")).toContainText(second, { timeout: 30_000 });
    await expect(runPage).toHaveAttribute("data-state", "REVIEW");
    expect(receiver.requests).toHaveLength(0);

    // Ana approves the new draft (her name remembered in this browser)
    item = await queueItem(ana.page, runId);
    await expect(item.getByTestId("review-shown")).toContainText(second);
    await expect(ana.page.getByLabel("Deciding as")).toHaveValue("Ana");
    expect(await ana.page.evaluate(() => localStorage.getItem("switchyard.reviewer"))).toContain("Ana");
    await expect(item.getByTestId("approvals")).toContainText("0 of 2 approvals");
    await item.locator('[data-decision="approve"]').click();
    await expect(item.getByTestId("approvals")).toContainText("1 of 2 approvals", { timeout: 15_000 });
    await expect(item.getByTestId("approvals")).toContainText("approved by Ana");
    expect(receiver.requests).toHaveLength(0);

    // Ben, in another browser, approves: the post is published
    const ben = await reviewer(browser);
    item = await queueItem(ben.page, runId);
    await expect(ben.page.getByLabel("Deciding as")).toHaveValue("");
    await ben.page.getByLabel("Deciding as").fill("Ben");
    await item.locator('[data-decision="approve"]').click();
    await expect(ben.page.locator(`[data-testid=review-row][data-run="${runId}"]`)).toHaveCount(0, { timeout: 15_000 });
    await expect(runPage).toHaveAttribute("data-state", "NOTIFY", { timeout: 30_000 });
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.body).toEqual({ text: second });
    expect(receiver.requests[0]!.key).toMatch(new RegExp(`^${runId}:`));
    await ana.context.close();
    await ben.context.close();

    // a worker claims NOTIFY's task and completes it
    const task = await claimTask(request, "publisher", "e2e-notifier");
    expect(task).toMatchObject({ runId, stage: "NOTIFY", attempt: 1 });
    expect(task.input.steps.DRAFT?.output).toBe(second);
    await completeTask(request, task, "e2e-notifier", { notified: ["#posts"] });
    await expect(runPage).toHaveAttribute("data-status", "completed", { timeout: 20_000 });
    await expect(runPage).toHaveAttribute("data-state", "DONE");

    // the Steps view: the model's words, the decisions, the publication, the worker
    await expect(steps.getByTestId("step-stage")).toHaveText(["DRAFT", "REVIEW", "PUBLISH", "NOTIFY"]);
    for (const s of ["DRAFT", "REVIEW", "PUBLISH", "NOTIFY"]) await expect(steps.locator(`[data-testid=step][data-stage="${s}"]`)).toHaveAttribute("data-status", "done");
    await expect(draft.getByTestId("step-output")).toContainText(second);
    await expect(draft.getByTestId("step-meta")).toContainText(MODEL);
    await draft.getByTestId("step-prompt").locator("summary").click();
    await expect(draft.getByTestId("step-prompt")).toContainText("Mention the moon.");
    const review = steps.locator('[data-testid=step][data-stage="REVIEW"]');
    await expect(review.getByTestId("step-decisions").locator("li")).toHaveText([/^reject by Ana .*“Mention the moon\.”$/, /^approve by Ana/, /^approve by Ben/]);
    const publish = steps.locator('[data-testid=step][data-stage="PUBLISH"]');
    await expect(publish.getByTestId("step-meta")).toContainText("HTTP 200");
    await expect(publish.getByTestId("step-output")).toContainText('"published": true');
    await expect(steps.locator('[data-testid=step][data-stage="NOTIFY"]').getByTestId("step-meta")).toContainText("worker e2e-notifier");
    await page.getByTestId("steps-link").click();
    await expect(steps.getByRole("heading", { name: "Steps" })).toBeInViewport();
    await shot(page, "post-pipeline-model-steps-1440");

    // exactly once, still; and the model was asked exactly twice
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.posts.size).toBe(1);
    expect(prompts).toHaveLength(2);
  });
});
