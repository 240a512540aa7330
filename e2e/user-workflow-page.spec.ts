// A user workflow's run page: the New run form made from declared inputs (with field
// errors), one name per run, each step's request and response (the secret header as [secret]),
// the result card above the diagram, no manual moves where a step moves the run, and a failed
// run's banner with "Retry from <step>". Screenshots at 1440×900 and 390×844.
import fs from "node:fs";
import http from "node:http";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { claimTask, completeTask, expectWorkflowSaved, pendingReviewFor, shot } from "./helpers";

const HELPDESK_PORT = Number(process.env.E2E_HELPDESK_PORT ?? 3262);
const API_BASE = `http://127.0.0.1:${HELPDESK_PORT}`;
let helpdesk: http.Server;

test.beforeAll(async () => {
  helpdesk = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url === "/fail") {
        res.writeHead(503, { "content-type": "application/json" });
        return res.end(JSON.stringify({ error: "the helpdesk is down for maintenance" }));
      }
      res.writeHead(200, { "content-type": "application/json" });
      if (req.method === "GET") return res.end(JSON.stringify({ customer: req.url!.split("/").pop(), plan: "pro", open_tickets: 2 }));
      res.end(JSON.stringify({ reply_id: "r-1", sent: true, key: req.headers["idempotency-key"] }));
    });
  });
  await new Promise<void>((r) => helpdesk.listen(HELPDESK_PORT, "127.0.0.1", r));
});
test.afterAll(async () => {
  helpdesk.closeAllConnections();
  await new Promise((r) => helpdesk.close(r));
});

const TRIAGE = fs.readFileSync("examples/workflows/support-triage.yaml", "utf8");
const FAILING = `id: helpdesk-sync
title: Helpdesk sync
inputs: { ticket_id: string }
run_name: "Sync {{input.ticket_id}}"
stages: [PREPARE, PUSH, DONE]
initial_stage: PREPARE
transitions: { PREPARE: [PUSH], PUSH: [DONE], DONE: [] }
steps:
  PREPARE:
    code: { source: "({ ticket: input.ticket_id, fields: 3 })" }
    next: PUSH
  PUSH:
    http: { url: "${API_BASE}/fail", body: { ticket: "{{input.ticket_id}}" } }
    retry: { max: 1, backoff_s: 0 }
    next: DONE
`;

async function define(request: APIRequestContext, yaml: string) {
  const res = await request.post("/api/workflows", { data: { yaml } });
  expectWorkflowSaved(res.status(), await res.text());
}

const expand = async (page: Page, stage: string, summary: RegExp) => {
  const step = page.locator(`[data-testid=step][data-stage="${stage}"]`);
  const details = step.locator("details").filter({ has: page.locator("summary", { hasText: summary }) }).first();
  if ((await details.getAttribute("open")) === null) await details.locator("summary").first().click();
  return step;
};

for (const size of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test(`support triage at ${size.width}: typed form, one name, requests and responses, result card`, async ({ page, request }) => {
    test.setTimeout(120_000);
    await page.setViewportSize(size);
    await define(request, TRIAGE);
    await page.goto("/");
    await page.getByLabel("Workflow", { exact: true }).selectOption("support-triage");
    const form = page.getByTestId("new-run-form");
    await expect(form.getByTestId("input-ticket_id")).toHaveAttribute("data-required", "true");
    await expect(form.getByTestId("input-urgent")).toHaveAttribute("data-type", "boolean");
    await expect(form.getByRole("textbox", { name: "task", exact: true })).toHaveCount(0);
    // a required input left out: said under its field, nothing started
    await form.getByLabel(/^subject/).fill("Printer on fire");
    await page.getByRole("button", { name: "Start run" }).click();
    await expect(form.getByTestId("input-ticket_id")).toContainText("required (string)");
    const ticket = `T-${size.width}`;
    await form.getByLabel(/^ticket_id/).fill(ticket);
    await form.getByLabel(/^body/).fill("It smells of smoke and prints only blank pages.");
    await form.getByLabel(/^customer/).fill("ana");
    await form.getByLabel(/^api_base/).fill(API_BASE);
    await form.getByLabel(/^urgent/).check();
    await page.getByRole("button", { name: "Start run" }).click();
    await page.waitForURL(/\/runs\/[0-9a-f-]{36}$/);
    const runId = page.url().split("/").pop()!;
    await expect(page.getByTestId("run-title")).toHaveText(`${ticket}: Printer on fire`);
    await expect(page).toHaveTitle(`${ticket}: Printer on fire · Support triage · Switchyard`);

    // the worker drafts; while the run waits in a step, there is nothing to move or send by hand
    const task = await claimTask(request, "triage-drafts", "e2e-worker");
    await expect(page.getByTestId("stage-by-step")).toBeVisible();
    await expect(page.getByTestId("next-stages")).toHaveCount(0);
    await completeTask(request, task, "e2e-worker", `Dear ana, sorry about the smoke: a technician comes today (ticket ${ticket}).`);
    for (const reviewer of ["ana", "ben"]) {
      const review = await pendingReviewFor(request, runId);
      const res = await request.post(`/api/reviews/${review}/decision`, { data: { decision: "approve", reviewer } });
      expect(res.status()).toBe(200);
    }
    const run = page.getByTestId("run-page");
    await expect(run).toHaveAttribute("data-status", "completed", { timeout: 30_000 });
    await expect(run).toHaveAttribute("data-state", "DONE");

    // the result card, above the diagram
    const result = page.getByTestId("run-result");
    await expect(result).toHaveAttribute("data-kind", "result");
    await expect(result).toContainText("sorry about the smoke");
    // each step's request and response
    const lookup = await expand(page, "LOOKUP", /Request sent/);
    await expect(lookup.getByTestId("step-request-headers")).toContainText("Authorization");
    await expect(lookup.getByTestId("step-request-headers")).toContainText("[secret]");
    await expect(lookup.getByTestId("step-request-headers")).not.toContainText("e2e-helpdesk-token");
    const send = await expand(page, "SEND", /Request sent/);
    await expect(send.getByTestId("step-request")).toContainText(`POST ${API_BASE}/tickets/${ticket}/replies`);
    await expect(send).toContainText("Response · HTTP 200");
    await expect(send.getByTestId("step-idempotency-key")).toHaveAttribute("data-key", new RegExp(`^${runId}:step-`));
    await expect(send.getByTestId("step-idempotency-key")).toContainText(`${runId.slice(0, 8)}…:step-`);
    const draft = await expand(page, "DRAFT", /Task input the worker got/);
    await expect(draft.getByTestId("step-request-input")).toBeVisible();
    await send.scrollIntoViewIfNeeded();
    await shot(page, `user-run-steps-${size.width}`);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, `user-run-result-${size.width}`);
    // the runs list names it the same
    await page.goto("/?workflow=support-triage");
    await expect(page.locator(`tr[data-run="${runId}"]`).getByTestId("run-name")).toHaveText(`${ticket}: Printer on fire`);
  });

  test(`a failed run at ${size.width}: the error, the step, its attempts, and Retry from it`, async ({ page, request }) => {
    test.setTimeout(90_000);
    await page.setViewportSize(size);
    await define(request, FAILING);
    const res = await request.post("/api/runs", { data: { workflow: "helpdesk-sync", input: { ticket_id: `F-${size.width}` } } });
    expect(res.status()).toBe(201);
    const runId = ((await res.json()) as { id: string }).id;
    await page.goto(`/runs/${runId}`);
    const run = page.getByTestId("run-page");
    await expect(run).toHaveAttribute("data-status", "failed", { timeout: 30_000 });
    const banner = page.getByTestId("run-result");
    await expect(banner).toHaveAttribute("data-kind", "error");
    await expect(banner.getByTestId("failure-where")).toHaveText(/^Failed in PUSH · 2 attempts/);
    await expect(banner.getByTestId("failure-message")).toContainText("answered 503");
    await expect(banner.getByTestId("failure-message")).toContainText("the helpdesk is down for maintenance");
    const retry = banner.getByRole("button", { name: "Retry from PUSH" });
    await expect(retry).toBeVisible();
    await expect(banner).toBeInViewport();
    await shot(page, `user-run-failed-${size.width}`);
    await retry.click();
    await page.waitForURL((u) => /\/runs\/[0-9a-f-]{36}$/.test(u.pathname) && !u.pathname.endsWith(runId));
    await expect(page.getByTestId("fork-of")).toContainText(`forked from run ${runId.slice(0, 8)}`);
    await expect(page.getByTestId("run-title")).toHaveText(`Sync F-${size.width}`);
  });
}
