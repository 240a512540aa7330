// The API reference page (/api-reference): Swagger UI, bundled into the app, renders
// /api/openapi.json. It lists the operations, opens one with its parameters and error answers,
// and makes no request off its own origin (no CDN, no web fonts, no validator badge). The built
// server also splits an artifact's path sent with its slash encoded (%2F).
import { expect, test } from "./fixtures";
import { SHOTS } from "./helpers";

test("the reference renders every operation from /api/openapi.json and asks nothing of another origin", async ({ page, request, baseURL }) => {
  const origin = new URL(baseURL!).origin;
  const requests: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("websocket", (ws) => requests.push(ws.url()));

  const doc = (await (await request.get("/api/openapi.json")).json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
  expect(doc.openapi).toMatch(/^3\.1\./);
  const count = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);

  await page.setViewportSize({ width: 1440, height: 900 });
  // Settings links to it
  await page.goto("/settings");
  await expect(page.getByTestId("api-settings").getByRole("link", { name: "API reference" })).toHaveAttribute("href", "/api-reference");
  const res = await page.goto("/api-reference");
  // this page's policy also keeps fetches and fonts on this origin; other pages keep theirs
  const csp = res!.headers()["content-security-policy"] ?? "";
  for (const d of ["frame-ancestors 'none'", "img-src 'self' data: blob:", "connect-src 'self'", "font-src 'self'"]) expect(csp).toContain(d);
  expect((await request.get("/workflows")).headers()["content-security-policy"]).toBe("frame-ancestors 'none'; img-src 'self' data: blob:");
  await expect(page.getByRole("heading", { name: "API reference" })).toBeVisible();
  const ops = page.locator("[data-testid=api-reference] .opblock");
  await expect(ops.first()).toBeVisible({ timeout: 20_000 });
  await expect(ops).toHaveCount(count);
  await expect(page.locator(".opblock-summary-path", { hasText: /^\/api\/runs\/\{id\}\/artifacts\/\{path\}$/ })).toHaveCount(1);
  await expect(page.locator(".opblock-summary-path", { hasText: /^\/api\/reviews\/\{id\}\/decision$/ })).toHaveCount(1);
  await page.screenshot({ path: `${SHOTS}/api-reference-1440.png` });

  // open "Start a run": its Idempotency-Key header, its body and its error answers
  const start = page.locator(".opblock-post", { has: page.locator(".opblock-summary-path", { hasText: /^\/api\/runs$/ }) });
  await start.locator(".opblock-summary").click();
  // the address follows the open operation (deep links), though its path is text, not a link inside the row's button
  await expect(page).toHaveURL(/#\/Runs\/startRun$/);
  // (Swagger UI keeps an <a> without href around the path: not a link, nothing to focus or click)
  await expect(start.locator(".opblock-summary a[href]")).toHaveCount(0);
  await expect(start.locator(".opblock-summary").getByRole("link")).toHaveCount(0);
  await expect(start.locator(".parameters")).toContainText("idempotency-key");
  await expect(start.locator(".responses-table")).toContainText("422");
  await expect(start.locator(".responses-table")).toContainText("workflow_disabled");
  await page.screenshot({ path: `${SHOTS}/api-reference-open-1440.png` });

  await page.setViewportSize({ width: 390, height: 844 });
  await expect(ops.first()).toBeVisible();
  await page.screenshot({ path: `${SHOTS}/api-reference-390.png` });

  const foreign = requests.filter((u) => !u.startsWith("data:") && !u.startsWith("blob:") && new URL(u).origin !== origin);
  expect(foreign).toEqual([]);
  expect(requests).toContain(`${origin}/api/openapi.json`);
});

test("an artifact's path with its slash encoded is split on the built server", async ({ request }) => {
  const started = await request.post("/api/runs", { data: { workflow: "conversation", input: {} } });
  expect(started.status()).toBe(201);
  const { id } = (await started.json()) as { id: string };
  for (const path of ["notes%2Fsummary.md", "notes/summary.md"]) {
    const res = await request.get(`/api/runs/${id}/artifacts/${path}`);
    expect(res.status(), path).toBe(404);
    expect((await res.json()).error, path).toBe(`run ${id} has no artifact notes/summary.md`);
  }
  const dots = await request.get(`/api/runs/${id}/artifacts/notes%2F..%2Fsecret.md`);
  expect(dots.status()).toBe(422);
});
