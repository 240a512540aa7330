// Every response of the built server refuses framing (X-Frame-Options DENY, CSP frame-ancestors
// 'none') and allows images from this site only (CSP img-src): pages, API answers, a 404
// (next.config.ts).
import { expect, test } from "./fixtures";

test("pages, API answers and a 404 carry the framing refusal and the img-src policy", async ({ request }) => {
  for (const path of ["/", "/workflows", "/runs/no-such-run", "/api/health", "/api/runs?limit=1", "/no-such-page"]) {
    const res = await request.get(path, { maxRedirects: 0 });
    const h = res.headers();
    expect(h["x-frame-options"], path).toBe("DENY");
    expect(h["content-security-policy"], path).toContain("frame-ancestors 'none'");
    expect(h["content-security-policy"], path).toContain("img-src 'self'");
  }
});

test.describe("framing", () => {
  const refused = /frame-ancestors|X-Frame-Options|Refused to display/i;
  test.use({ allowConsoleErrors: [refused] });

  test("another site's page cannot frame the app: the browser refuses to show it", async ({ page, baseURL }) => {
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await page.setContent(`<iframe id="f" src="${baseURL}/" width="400" height="300"></iframe>`);
    await expect.poll(() => errors.join("\n"), { timeout: 15_000 }).toMatch(refused);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame?.url() ?? "").not.toBe(`${baseURL}/`);
  });
});
