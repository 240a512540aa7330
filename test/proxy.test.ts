// proxy.ts: it does not run on /api (so Next.js does not buffer API bodies for it and cut them
// at 10 MB), it drops a client-sent X-Forwarded-Host unless SWITCHYARD_TRUST_PROXY is set (Next's
// server-action origin check believes that header), and it refuses cross-site server actions
// with 403 before Next's own check answers 500.
import { createRequire } from "node:module";
import { NextRequest } from "next/server";
import { afterEach, describe, expect, it } from "vitest";
import { config, proxy } from "../proxy";

const require = createRequire(import.meta.url);
const { getMiddlewareMatchers } = require("next/dist/build/analysis/get-page-static-info") as { getMiddlewareMatchers: (m: unknown, c: object) => { regexp: string }[] };
const { getMiddlewareRouteMatcher } = require("next/dist/shared/lib/router/utils/middleware-route-matcher") as {
  getMiddlewareRouteMatcher: (m: { regexp: string }[]) => (path: string, req: object, query: object) => boolean;
};

const saved = { trust: process.env.SWITCHYARD_TRUST_PROXY, auth: process.env.SWITCHYARD_AUTH };
afterEach(() => {
  for (const [k, v] of [["SWITCHYARD_TRUST_PROXY", saved.trust], ["SWITCHYARD_AUTH", saved.auth]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

const H = "http://localhost:3000";
const page = (path: string, init: { method?: string; headers?: Record<string, string> } = {}) => new NextRequest(`${H}${path}`, { method: init.method ?? "GET", headers: { host: "localhost:3000", ...init.headers } });
/** the request headers the proxy hands on (null: unchanged) */
function forwarded(res: Response): Record<string, string> | null {
  const names = res.headers.get("x-middleware-override-headers");
  if (names === null) return null;
  return Object.fromEntries(names.split(",").map((n) => [n, res.headers.get(`x-middleware-request-${n}`) ?? ""]));
}

describe("proxy.ts", () => {
  it("does not run on /api (its body would be buffered and cut at 10 MB), but on pages and server actions", () => {
    const matches = getMiddlewareRouteMatcher(getMiddlewareMatchers(config.matcher, {}));
    for (const p of ["/api/runs/import", "/api/knowledge", "/api/runs/abc/events", "/api/health", "/_next/static/x.js"]) expect(matches(p, {}, {}), p).toBe(false);
    for (const p of ["/", "/runs/abc", "/login", "/knowledge", "/workflows/new"]) expect(matches(p, {}, {}), p).toBe(true);
  });

  it("drops a client-sent X-Forwarded-Host unless SWITCHYARD_TRUST_PROXY is set", () => {
    delete process.env.SWITCHYARD_TRUST_PROXY;
    const sent = forwarded(proxy(page("/runs", { headers: { "x-forwarded-host": "evil.example" } })));
    expect(sent).not.toBeNull();
    expect(sent).not.toHaveProperty("x-forwarded-host");
    expect(sent).toHaveProperty("host", "localhost:3000");
    process.env.SWITCHYARD_TRUST_PROXY = "1";
    expect(forwarded(proxy(page("/runs", { headers: { "x-forwarded-host": "sy.example" } })))).toBeNull(); // passed on untouched
  });

  it("refuses a cross-site server action with 403 (Next.js would answer 500), also when it names itself in X-Forwarded-Host", async () => {
    delete process.env.SWITCHYARD_TRUST_PROXY;
    for (const headers of <Record<string, string>[]>[
      { origin: "https://evil.example", "next-action": "abc" },
      { origin: "https://evil.example", "x-forwarded-host": "evil.example", "next-action": "abc" },
      { "sec-fetch-site": "cross-site", "content-type": "multipart/form-data; boundary=x" },
      { origin: "null" },
    ]) {
      const res = proxy(page("/runs/abc", { method: "POST", headers }));
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(await res.json()).toMatchObject({ code: "cross_site" });
    }
    // the app's own pages, and reads from anywhere, go on
    expect(proxy(page("/runs/abc", { method: "POST", headers: { origin: H, "next-action": "abc" } })).status).toBe(200);
    expect(proxy(page("/runs/abc", { headers: { origin: "https://evil.example" } })).status).toBe(200);
    // behind a declared proxy the forwarded host is the public one
    process.env.SWITCHYARD_TRUST_PROXY = "1";
    expect(proxy(page("/runs/abc", { method: "POST", headers: { origin: "https://sy.example", "x-forwarded-host": "sy.example" } })).status).toBe(200);
  });

  it("with accounts on, a page without the session cookie goes to /login", () => {
    process.env.SWITCHYARD_AUTH = "on";
    const res = proxy(page("/runs/abc?tab=1"));
    expect(res.status).toBe(307);
    expect(res.headers.get("location")).toBe(`${H}/login?next=${encodeURIComponent("/runs/abc?tab=1")}`);
    const ok = proxy(page("/runs/abc", { headers: { cookie: "sy_session=x" } }));
    expect(forwarded(ok)).toHaveProperty("x-sy-path", "/runs/abc");
  });
});
