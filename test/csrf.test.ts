// Cross-site requests: a state-changing API call another site's page makes through a user's
// browser is refused (403) and changes nothing; same-origin pages, scripts and reads work.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertSameOrigin, crossSiteReason, trustProxy } from "../lib/api/csrf";
import { migrateDatabase } from "../lib/db/migrations";
import { tempDbUrl } from "./helpers";

const url = tempDbUrl("csrf");
process.env.DATABASE_URL = url;
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
let runs: { POST: Handler; GET: Handler };
let knowledge: { POST: Handler };
const ctx = { params: Promise.resolve({}) };
const body = JSON.stringify({ workflow: "loop", input: { request: "Summarise the release notes" } });
const post = (headers: Record<string, string>) => new Request("http://localhost:3000/api/runs", { method: "POST", body, headers: { "content-type": "application/json", host: "localhost:3000", ...headers } });

beforeAll(async () => {
  await migrateDatabase(url);
  runs = (await import("../app/api/runs/route")) as never;
  knowledge = (await import("../app/api/knowledge/route")) as never;
});
afterAll(async () => {
  const { getRuntime } = await import("../lib/runtime");
  await (await getRuntime()).close();
});

async function total(): Promise<number> {
  return (await (await runs.GET(new Request("http://localhost:3000/api/runs"), ctx)).json()).total;
}

describe("cross-site requests", () => {
  it("refuses a POST from another site's page (Origin or Sec-Fetch-Site) with 403, and starts nothing", async () => {
    const before = await total();
    for (const headers of [{ origin: "https://evil.example" } as Record<string, string>, { "sec-fetch-site": "cross-site", origin: "https://evil.example" }, { origin: "null" }, { origin: "http://localhost:3001" }]) {
      const res = await runs.POST(post(headers), ctx);
      expect(res.status).toBe(403);
      expect((await res.json()).error).toMatch(/cross-site request refused/);
    }
    // a multipart upload (a plain HTML form can send one cross-site) is refused the same way
    const form = new FormData();
    form.append("file", new Blob(["# hi"], { type: "text/markdown" }), "a.md");
    const up = await knowledge.POST(new Request("http://localhost:3000/api/knowledge", { method: "POST", body: form, headers: { origin: "https://evil.example", host: "localhost:3000" } }), ctx);
    expect(up.status).toBe(403);
    expect(await total()).toBe(before);
  });

  it("accepts the app's own pages, proxies that name the host, and scripts without browser headers", async () => {
    expect((await runs.POST(post({ origin: "http://localhost:3000", "sec-fetch-site": "same-origin" }), ctx)).status).toBe(201);
    process.env.SWITCHYARD_TRUST_PROXY = "1";
    try {
      expect((await runs.POST(post({ origin: "https://switchyard.example.com", "x-forwarded-host": "switchyard.example.com, proxy.internal" }), ctx)).status).toBe(201);
    } finally {
      delete process.env.SWITCHYARD_TRUST_PROXY;
    }
    expect((await runs.POST(post({}), ctx)).status).toBe(201);
    // reads are never refused
    expect(() => assertSameOrigin(new Request("http://localhost:3000/api/runs", { headers: { origin: "https://evil.example" } }))).not.toThrow();
  });

  it("believes X-Forwarded-Host only behind a declared proxy (SWITCHYARD_TRUST_PROXY)", async () => {
    const before = await total();
    // any client can send the header: on its own it is no proof of where the request comes from
    const spoofed = post({ origin: "https://evil.example", "x-forwarded-host": "evil.example" });
    const res = await runs.POST(spoofed, ctx);
    expect(res.status).toBe(403);
    expect((await res.json()).error).toMatch(/cross-site request refused: https:\/\/evil\.example/);
    expect(await total()).toBe(before);
    expect(crossSiteReason("POST", new Headers({ origin: "https://evil.example", "x-forwarded-host": "evil.example", host: "localhost:3000" }), "http://localhost:3000/x", {})).toBe("https://evil.example");
    // behind a declared proxy the header names the public host
    const env = { SWITCHYARD_TRUST_PROXY: "true" };
    expect(trustProxy(env)).toBe(true);
    expect(trustProxy({ SWITCHYARD_TRUST_PROXY: "0" })).toBe(false);
    expect(crossSiteReason("POST", new Headers({ origin: "https://sy.example", "x-forwarded-host": "sy.example", host: "10.0.0.2:3000" }), "http://10.0.0.2:3000/x", env)).toBeNull();
    expect(crossSiteReason("POST", new Headers({ origin: "https://evil.example", "x-forwarded-host": "sy.example", host: "10.0.0.2:3000" }), "http://10.0.0.2:3000/x", env)).toBe("https://evil.example");
  });
});
