// The team's scenario end to end, on a server of its own (npm start on a SQLite file): the
// support-triage definition of examples/workflows/ validated and imported with the `switchyard`
// command line, six tickets started with it, drafts written by a Python worker on
// clients/python/switchyard.py with concurrency 4, two approvers deciding with the command line,
// and the server SIGKILLed mid-run (two LOOKUP calls held unanswered in flight, four runs waiting
// for their second approval) and started again. Every ticket ends where it should: four replies
// sent once each, one escalated by a reject, one failed in SEND after its retries; the LOOKUPs in
// flight at the kill went out again with the same Idempotency-Key and the run page says so; a
// `runs watch` begun before the kill reconnects and ends with its run. Screenshots of the run page
// (requests and responses, result card) and of the failed run's banner at 1440×900 and 390×844.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { ownPort } from "./helpers";

const PORT = ownPort(4);
const BASE = `http://127.0.0.1:${PORT}`;
const HELPDESK = ownPort(5);
const API_BASE = `http://127.0.0.1:${HELPDESK}`;
const TOKEN = "team-helpdesk-token";
const BIN = path.resolve("node_modules/.bin/switchyard");
const SHOTS = "/tmp";

const TICKETS = [
  { ticket_id: "T-1", subject: "Invoice twice", body: "I was charged twice this month.", customer: "ana" },
  { ticket_id: "T-2", subject: "Cannot log in", body: "Password reset mail never arrives!", customer: "ben", urgent: true },
  { ticket_id: "T-3", subject: "Export is slow", body: "The CSV export takes ten minutes.", customer: "cleo" },
  { ticket_id: "T-4", subject: "Refund now", body: "I want all my money back today.", customer: "dan" },
  { ticket_id: "T-5", subject: "Wrong address", body: "My parcel went to my old address.", customer: "eve" },
  { ticket_id: "T-6", subject: "App crashes", body: "The app crashes when I open settings.", customer: "finn" },
];

type Call = { method: string; path: string; key?: string; auth?: string };
const calls: Call[] = [];
const holding = new Set<string>();
const held: http.ServerResponse[] = [];
let helpdesk: http.Server;
let server: ChildProcess | null = null;
let worker: ChildProcess | null = null;
let dir: string;

function answer(req: http.IncomingMessage, res: http.ServerResponse) {
  const customer = /^\/customers\/([^/]+)$/.exec(req.url ?? "")?.[1];
  if (req.method === "GET" && customer) return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ customer, plan: customer === "ben" ? "enterprise" : "pro", open_tickets: 1 }));
  if (req.url === "/tickets/T-3/replies") return res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "the reply service is down for maintenance" }));
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ reply_id: `r-${calls.length}`, sent: true }));
}

async function startServer(): Promise<ChildProcess> {
  const env = { ...process.env, PORT: String(PORT), HOSTNAME: "127.0.0.1", DATABASE_URL: `file:${path.join(dir, "team.db")}`, SWITCHYARD_SECRET_HELPDESK_TOKEN: TOKEN, NEXT_TELEMETRY_DISABLED: "1", SWITCHYARD_ALERT_INTERVAL_MS: "0" };
  const child = spawn(process.execPath, ["scripts/start.mjs"], { env, stdio: "ignore", detached: true });
  // up to 2 minutes: a busy machine migrates and starts Next.js slowly
  for (let i = 0; i < 1200; i++) {
    if (await fetch(`${BASE}/api/health`).then((r) => r.ok, () => false)) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the team server did not start");
}

async function kill9(child: ChildProcess | null) {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once("exit", r));
  process.kill(-child.pid, "SIGKILL");
  await gone;
}

interface Cli {
  code: number;
  out: string;
  err: string;
}

/** The command line, as `npx switchyard` runs it; `onLine` sees each line of its output as it comes. */
function cli(args: string[], onLine?: (line: string) => void): Promise<Cli> & { child: ChildProcess } {
  const child = spawn(BIN, args, { env: { ...process.env, SWITCHYARD_URL: BASE }, cwd: dir });
  const done = new Promise<Cli>((resolve, reject) => {
    let out = "";
    let err = "";
    let partial = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      partial += c.toString();
      const lines = partial.split("\n");
      partial = lines.pop()!;
      for (const l of lines) onLine?.(l);
    });
    child.stderr!.on("data", (c: Buffer) => (err += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, out, err }));
  });
  return Object.assign(done, { child });
}

type RunDoc = { id: string; status: string; state: string[]; name: string; context: { steps: Record<string, { request?: { again?: string }; again?: string; attempts?: number }> } };
const getRun = async (id: string) => (await (await fetch(`${BASE}/api/runs/${id}`)).json()) as RunDoc;
const until = (what: string, check: () => Promise<boolean>) => expect.poll(check, { message: what, timeout: 120_000, intervals: [250, 500, 1000] }).toBe(true);

async function decide(runId: string, decision: string, reviewer: string): Promise<string> {
  const list = await cli(["reviews", "list", "--run", runId, "--json"]);
  expect(list.code, list.err).toBe(0);
  const [review] = JSON.parse(list.out) as { id: string; approvals: { by: string[] } }[];
  expect(review, `a pending review of ${runId}`).toBeTruthy();
  const out = await cli(["reviews", "decide", review!.id, decision, "--reviewer", reviewer, "-m", `${reviewer}: ${decision}`]);
  expect(out.code, out.err).toBe(0);
  return out.out.trim();
}

test.beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-team-"));
  helpdesk = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      calls.push({ method: req.method!, path: req.url!, key: req.headers["idempotency-key"] as string | undefined, auth: req.headers.authorization });
      const customer = /^\/customers\/([^/]+)$/.exec(req.url ?? "")?.[1];
      if (customer && holding.has(customer)) return void held.push(res);
      answer(req, res);
    });
  });
  await new Promise<void>((r) => helpdesk.listen(HELPDESK, "127.0.0.1", r));
});

test.afterAll(async () => {
  worker?.kill("SIGKILL");
  await kill9(server);
  helpdesk?.closeAllConnections();
  await new Promise((r) => helpdesk?.close(r));
  fs.rmSync(dir, { recursive: true, force: true });
});

test("support triage: Python worker ×4, two approvers, kill -9 mid-run and restart, every ticket where it should be", async ({ page }) => {
  test.setTimeout(600_000);
  server = await startServer();
  const file = path.resolve("examples/workflows/support-triage.yaml");
  const checked = await cli(["workflows", "validate", file]);
  expect(checked.code, checked.out + checked.err).toBe(0);
  expect(checked.out).toContain("support-triage is valid");
  expect((await cli(["workflows", "import", file])).out).toMatch(/^saved support-triage v\d+\n$/);

  // the Python worker, concurrency 4
  worker = spawn("python3", [path.resolve("test/support/python/triage_worker.py")], { env: { ...process.env, SWITCHYARD_URL: BASE, PYTHONPATH: path.resolve("clients/python") } });
  const drafted: { drafted: string; ticket: string; attempt: number }[] = [];
  let workerOut = "";
  let partial = "";
  worker.stdout!.on("data", (c: Buffer) => {
    workerOut += c.toString();
    const lines = (partial + c.toString()).split("\n");
    partial = lines.pop()!;
    for (const l of lines) if (l.startsWith('{"drafted"')) drafted.push(JSON.parse(l));
  });
  worker.stderr!.on("data", (c: Buffer) => (workerOut += c.toString()));
  await until("the worker is ready", async () => workerOut.includes("ready"));

  // the last two tickets' customer lookups are held unanswered: in flight when the server dies
  holding.add("eve").add("finn");
  const ids: Record<string, string> = {};
  for (const t of TICKETS) {
    fs.writeFileSync(path.join(dir, `${t.ticket_id}.json`), JSON.stringify({ ...t, api_base: API_BASE }));
    const started = await cli(["runs", "start", "support-triage", "--input", `@${t.ticket_id}.json`, "--json"]);
    expect(started.code, started.err).toBe(0);
    const run = JSON.parse(started.out) as { id: string; name: string };
    expect(run.name).toBe(`${t.ticket_id}: ${t.subject}`);
    ids[t.ticket_id] = run.id;
  }
  const first = ["T-1", "T-2", "T-3", "T-4"];
  for (const t of first) await until(`${t} waits for approval`, async () => (await getRun(ids[t]!)).state.includes("APPROVE"));
  await until("both held lookups are in flight", async () => held.length === 2);
  // the first approver, before the kill
  for (const t of first) expect(await decide(ids[t]!, "approve", "ana")).toMatch(/→ run \S+ waiting in APPROVE$/);

  // a watch of T-5 from before the kill: it must outlive the restart
  const watchLines: string[] = [];
  let watching = false;
  const watch = cli(["runs", "watch", ids["T-5"]!], (l) => {
    watchLines.push(l);
    if (l.startsWith(`run ${ids["T-5"]}`)) watching = true;
  });
  await until("the watch is streaming", async () => watching);

  await kill9(server);
  server = null;
  holding.clear();
  for (const res of held.splice(0)) res.destroy();
  server = await startServer();

  // after the restart: the held lookups go out again, the worker drafts, the second approver decides
  for (const t of ["T-5", "T-6"]) {
    await until(`${t} waits for approval`, async () => (await getRun(ids[t]!)).state.includes("APPROVE"));
    expect(await decide(ids[t]!, "approve", "ana")).toMatch(/waiting in APPROVE$/);
  }
  expect(await decide(ids["T-1"]!, "approve", "ben")).toMatch(/→ run \S+ (running in SEND|completed in DONE)$/);
  expect(await decide(ids["T-2"]!, "approve", "ben")).toMatch(/→ run \S+ (running in SEND|completed in DONE)$/);
  expect(await decide(ids["T-3"]!, "approve", "ben")).toMatch(/→ run \S+ running in SEND$/);
  expect(await decide(ids["T-4"]!, "reject", "ben")).toMatch(/→ run \S+ completed in ESCALATED$/);
  for (const t of ["T-5", "T-6"]) await decide(ids[t]!, "approve", "ben");

  const expected: Record<string, [string, string]> = { "T-1": ["completed", "DONE"], "T-2": ["completed", "DONE"], "T-3": ["failed", "FAILED"], "T-4": ["completed", "ESCALATED"], "T-5": ["completed", "DONE"], "T-6": ["completed", "DONE"] };
  for (const [t, [status, state]] of Object.entries(expected)) {
    await until(`${t} ends ${status} in ${state}`, async () => {
      const r = await getRun(ids[t]!);
      return r.status === status && r.state.join() === state;
    });
  }

  // the watch begun before the kill: reconnected, each transition once and in order, ended with the run
  const watched = await watch;
  expect(watched.code, watched.err).toBe(0);
  expect(watched.err).toContain("reconnecting");
  expect(watchLines.at(-1)).toBe(`run ${ids["T-5"]} completed in DONE`);
  expect(watchLines.some((l) => l.includes(" → APPROVE ")) && watchLines.some((l) => l.includes(" → DONE "))).toBe(true);
  const seqs = watchLines.map((l) => /  #(\d+)  /.exec(l)?.[1]).filter(Boolean).map(Number);
  expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  // the failed run: watch says so with exit 8
  const failedWatch = await cli(["runs", "watch", ids["T-3"]!]);
  expect(failedWatch.code).toBe(8);
  expect(failedWatch.out.trim().split("\n").at(-1)).toMatch(new RegExp(`^run ${ids["T-3"]} failed in FAILED: .*503`));

  // the helpdesk: the lookups in flight at the kill went out again with the same key; every reply once
  const lookups = (customer: string) => calls.filter((c) => c.path === `/customers/${customer}`);
  for (const c of ["eve", "finn"]) {
    expect(lookups(c)).toHaveLength(2);
    expect(lookups(c)[1]!.key).toBe(lookups(c)[0]!.key);
  }
  for (const c of ["ana", "ben", "cleo", "dan"]) expect(lookups(c)).toHaveLength(1);
  const replies = (t: string) => calls.filter((c) => c.method === "POST" && c.path === `/tickets/${t}/replies`);
  for (const t of ["T-1", "T-2", "T-5", "T-6"]) expect(replies(t)).toHaveLength(1);
  expect(replies("T-4")).toHaveLength(0);
  expect(replies("T-3")).toHaveLength(4);
  expect(new Set(replies("T-3").map((c) => c.key)).size).toBe(1);
  expect(calls.every((c) => c.auth === `Bearer ${TOKEN}`)).toBe(true);
  // what the run says of the repeat
  for (const t of ["T-5", "T-6"]) expect((await getRun(ids[t]!)).context.steps.LOOKUP!.again).toBe("restart");

  // the worker: four drafts side by side, each ticket drafted, a clean stop on SIGTERM
  const stopped = new Promise((r) => worker!.once("exit", r));
  worker.kill("SIGTERM");
  await stopped;
  const summary = JSON.parse(workerOut.trim().split("\n").at(-1)!) as { stats: { completed: number }; most: number };
  expect(summary.most).toBe(4);
  expect(new Set(drafted.map((d) => d.ticket))).toEqual(new Set(TICKETS.map((t) => t.ticket_id)));
  expect(summary.stats.completed).toBeGreaterThanOrEqual(6);

  // the run page: each step's request and response, the result card; then the failed run's banner
  await shotsOfRun(page, ids["T-5"]!);
  await shotsOfFailure(page, ids["T-3"]!);
});

async function open(page: Page, stage: string, summary: RegExp) {
  const step = page.locator(`[data-testid=step][data-stage="${stage}"]`);
  const details = step.locator("details").filter({ has: page.locator("summary", { hasText: summary }) }).first();
  if ((await details.getAttribute("open")) === null) await details.locator("summary").first().click();
  return step;
}

async function shotsOfRun(page: Page, runId: string) {
  for (const size of [
    { width: 1440, height: 900 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    await page.goto(`${BASE}/runs/${runId}`);
    await expect(page.getByTestId("run-title")).toHaveText("T-5: Wrong address");
    const result = page.getByTestId("run-result");
    await expect(result).toHaveAttribute("data-kind", "result");
    await expect(result).toContainText('Hello eve. Thanks for writing to us. About "Wrong address": we are on it (pro plan, ticket T-5).');
    await expect(result).toBeInViewport();
    await page.screenshot({ path: `${SHOTS}/t36-team-result-${size.width}.png` });
    const lookup = await open(page, "LOOKUP", /Request sent/);
    await expect(lookup.getByTestId("step-request")).toContainText(`GET ${API_BASE}/customers/eve`);
    await expect(lookup.getByTestId("step-request-headers")).toContainText("[secret]");
    await expect(lookup.getByTestId("step-again")).toContainText("ran again after a restart — same Idempotency-Key");
    const send = await open(page, "SEND", /Request sent/);
    await expect(send.getByTestId("step-request")).toContainText(`POST ${API_BASE}/tickets/T-5/replies`);
    await expect(send).toContainText("Response · HTTP 200");
    await lookup.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/t36-team-steps-${size.width}.png` });
  }
}

async function shotsOfFailure(page: Page, runId: string) {
  for (const size of [
    { width: 1440, height: 900 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    await page.goto(`${BASE}/runs/${runId}`);
    const banner = page.getByTestId("run-result");
    await expect(banner).toHaveAttribute("data-kind", "error");
    await expect(banner.getByTestId("failure-where")).toHaveText(/^Failed in SEND · 4 attempts/);
    await expect(banner.getByTestId("failure-message")).toContainText("the reply service is down for maintenance");
    await expect(banner.getByRole("button", { name: "Retry from SEND" })).toBeVisible();
    await expect(banner).toBeInViewport();
    await page.screenshot({ path: `${SHOTS}/t36-team-failed-${size.width}.png` });
  }
}
