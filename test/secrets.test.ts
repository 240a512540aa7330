// Secrets stay on the server: an API key and a webhook secret are never in what the browser can
// read (API answers, the settings view), in what is stored about runs and deliveries, or in logs —
// even when the model endpoint refuses the key and the webhook receiver is down.
//
// vitest: shared — its spies (console) are restored in afterAll.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { describeEndpoints, loadEndpoints } from "../lib/llm/endpoints";
import { OpenAiModel } from "../lib/llm/openai";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import { flush, loopRuntime } from "./helpers";
import type { LoopContext } from "./fixtures/workflows/loop/machine";
import { start, type FakeOpenAi } from "./support/fake-openai";

const API_KEY = "sk-live-DO-NOT-LEAK-4242424242";
const HOOK_SECRET = "whsec-DO-NOT-LEAK-7373737373";
let fake: FakeOpenAi;
let rt: Runtime & { clock: ManualClock };
const logged: string[] = [];

beforeAll(async () => {
  fake = await start({ status: 401, message: "Incorrect API key provided" });
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : typeof a === "string" ? a : JSON.stringify(a))).join(" ")));
  }
  const env = { OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: fake.url, OPENAI_MODEL: "fake-1", SWITCHYARD_LLM_BACKOFF_MS: "1", SWITCHYARD_LLM_MAX_RETRIES: "1" };
  rt = await loopRuntime({
    seedGuide: false,
    model: new OpenAiModel(loadEndpoints(env), { sleep: async () => {} }),
    webhooks: { backoffMs: [1], pollMs: 5, fetch: async () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:9")) },
  });
});
afterAll(async () => {
  await rt?.close();
  await fake.close();
  vi.restoreAllMocks();
});

describe("secrets", () => {
  it("the model key and the webhook secret appear nowhere outside their own settings", async () => {
    // the key really was used (the fake saw it), and refused
    const hook = await rt.webhooks.createWebhook({ workflow: "*", url: "http://127.0.0.1:9/hook", secret: HOOK_SECRET, events: ["on_transition"] });
    // the loop's WORK calls the model: refused, the cycle ends failed
    const { run } = await rt.engine.start("loop", { request: "Summarise the release notes" });
    const done = await rt.engine.waitFor(run.id, (r) => (r.context as LoopContext).last !== null, 20_000);
    expect((done.context as LoopContext).last?.outcome).toBe("failed");
    for (let i = 0; i < 20; i++) {
      rt.clock.advance(10);
      await flush(5);
    }
    expect(fake.requests.some((r) => r.headers.authorization === `Bearer ${API_KEY}`)).toBe(true);

    const views = JSON.stringify([describeEndpoints(loadEndpoints({ OPENAI_API_KEY: API_KEY })), await rt.webhooks.listWebhooks(), await rt.webhooks.getWebhook(hook.id), await rt.webhooks.deliveries(hook.id), done]);
    expect(views).not.toContain(API_KEY);
    expect(views).not.toContain(HOOK_SECRET);
    expect(views).not.toContain(API_KEY.slice(0, 20));

    // every table but the webhook's own row (the secret must be stored to sign with it)
    const tables = (rt.sqlite!.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'RunText%' AND name NOT LIKE '_prisma%'`).all() as { name: string }[]).map((t) => t.name);
    for (const t of tables) {
      const rows = JSON.stringify(rt.sqlite!.db.prepare(`SELECT * FROM "${t}"`).safeIntegers(false).all(), (_k, v) => (typeof v === "bigint" ? Number(v) : v));
      if (t !== "Webhook") expect(rows, `table ${t}`).not.toContain(HOOK_SECRET);
      expect(rows, `table ${t}`).not.toContain(API_KEY);
    }
    expect((await rt.webhooks.deliveries(hook.id)).length).toBeGreaterThan(0);
    expect(logged.join("\n")).not.toContain(API_KEY);
    expect(logged.join("\n")).not.toContain(HOOK_SECRET);
  });
});
