// Accounts (SWITCHYARD_AUTH=on): every API route refuses a caller without a session or token
// (401) and one without the role it needs (403); roles viewer < reviewer < operator < admin;
// decisions are recorded as the signed-in person's; tokens are hashed and revocable; every
// server action checks the role.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Accounts } from "../lib/auth/accounts";
import { ManualClock } from "../lib/engine/clock";
import { migrateDatabase } from "../lib/db/migrations";
import { permits, requiredRole, sameSitePath } from "../lib/auth/roles";
import { builtInApi } from "../lib/machines/registry";
import { inState, tempDbUrl } from "./helpers";

// server actions read the session cookie through next/headers: here, the cookie a test sets
const jar = vi.hoisted(() => ({ session: null as string | null }));
vi.mock("next/headers", () => ({ cookies: async () => ({ get: (name: string) => (name === "sy_session" && jar.session ? { name, value: jar.session } : undefined) }) }));

const url = tempDbUrl("auth");
const saved = { url: process.env.DATABASE_URL, auth: process.env.SWITCHYARD_AUTH };
process.env.DATABASE_URL = url;
process.env.SWITCHYARD_AUTH = "on";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
/** `roles`: what a workflow's endpoint declares it needs, by method (none: the table in lib/auth/roles.ts) */
type Route = { file: string; path: string; methods: Record<string, Handler>; roles?: Record<string, ReturnType<typeof requiredRole> | undefined> };
const routes: Route[] = [];
const tokens: Record<string, string> = {};
let adminCookie = "";
const H = "http://localhost:3000";

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? routeFiles(path.join(dir, e.name)) : e.name === "route.ts" ? [path.join(dir, e.name)] : []));
}

const call = (r: Route, method: string, headers: Record<string, string> = {}, body?: unknown) => {
  const params: Record<string, string> = {};
  const urlPath = r.path.replace(/\[\.\.\.(\w+)\]/g, (_m, k) => ((params[k] = ["a"] as never), "a")).replace(/\[(\w+)\]/g, (_m, k) => ((params[k] = "x-1"), "x-1"));
  const init: RequestInit = { method, headers: { host: "localhost:3000", ...headers } };
  if (!["GET", "HEAD"].includes(method)) {
    init.body = JSON.stringify(body ?? {});
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  return r.methods[method](new Request(`${H}${urlPath}`, init), { params: Promise.resolve(params) });
};

beforeAll(async () => {
  await migrateDatabase(url);
  for (const file of routeFiles("app/api")) {
    const mod = (await import(`../${file}`)) as Record<string, unknown>;
    const methods = Object.fromEntries(["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) => typeof mod[m] === "function").map((m) => [m, mod[m] as Handler]));
    routes.push({ file, path: `/${path.dirname(file).replace(/^app\//, "")}`, methods });
  }
  // the workflows' endpoints, each served by the catch-all with the methods and roles it declares
  const catchAll = routes.find((r) => r.file.endsWith("[...name]/route.ts"))!;
  for (const { name, method, op } of builtInApi()) {
    let r = routes.find((x) => x.path === `/api/${name}`);
    if (!r) routes.push((r = { file: catchAll.file, path: `/api/${name}`, methods: {}, roles: {} }));
    r.methods[method] = catchAll.methods[method]!;
    r.roles![method] = op.role;
  }
  expect(routes.find((r) => r.path === "/api/profile")?.roles).toEqual({ GET: undefined, PUT: "operator", DELETE: "operator" });
  const { getRuntime } = await import("../lib/runtime");
  const rt = await getRuntime();
  for (const role of ["viewer", "reviewer", "operator", "admin"] as const) {
    await rt.accounts.createUser({ name: `${role}-user`, password: `${role}-password-123`, role });
    tokens[role] = (await rt.accounts.createToken(`${role}-user`, "tests", role)).token;
  }
  // an external worker's token, owned by an operator
  tokens.worker = (await rt.accounts.createToken("operator-user", "worker", "worker")).token;
  const login = routes.find((r) => r.path === "/api/auth/login")!;
  const res = await call(login, "POST", {}, { name: "admin-user", password: "admin-password-123" });
  expect(res.status).toBe(200);
  const cookie = res.headers.get("set-cookie")!;
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/SameSite=Lax/);
  adminCookie = cookie.split(";")[0];
});

afterAll(async () => {
  const { getRuntime } = await import("../lib/runtime");
  await (await getRuntime()).close();
  process.env.DATABASE_URL = saved.url;
  if (saved.auth === undefined) delete process.env.SWITCHYARD_AUTH;
  else process.env.SWITCHYARD_AUTH = saved.auth;
});

const bearer = (role: string) => ({ authorization: `Bearer ${tokens[role]}` });
const needOf = (r: Route, m: string) => (r.roles?.[m] !== undefined ? r.roles[m] : requiredRole(m, r.path.replace(/\[[^\]]+\]/g, "x")));

describe("accounts on", () => {
  it("every route without a session or token: 401 (health and sign-in excepted)", async () => {
    let checked = 0;
    for (const r of routes) {
      for (const m of Object.keys(r.methods)) {
        const need = needOf(r, m);
        const res = await call(r, m);
        if (need === null) {
          expect(res.status, `${m} ${r.path}`).not.toBe(401);
          continue;
        }
        expect(res.status, `${m} ${r.path}`).toBe(401);
        expect((await res.json()).error).toMatch(/sign in|API token/);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it("every mutating route refuses a viewer (403), and each role gets exactly what it may", async () => {
    let mutating = 0;
    for (const r of routes) {
      for (const m of Object.keys(r.methods).filter((x) => x !== "GET")) {
        const need = needOf(r, m);
        if (need === null) continue;
        mutating++;
        const res = await call(r, m, bearer("viewer"));
        expect(res.status, `${m} ${r.path} as viewer`).toBe(403);
        for (const role of ["reviewer", "operator", "admin"] as const) {
          const ok = permits(role, need);
          const status = (await call(r, m, bearer(role))).status;
          if (ok) expect([401, 403], `${m} ${r.path} as ${role}`).not.toContain(status);
          else expect(status, `${m} ${r.path} as ${role}`).toBe(403);
        }
      }
    }
    expect(mutating).toBeGreaterThan(14);
    // reads: any signed-in role
    const runs = routes.find((r) => r.path === "/api/runs")!;
    expect((await call(runs, "GET", bearer("viewer"))).status).toBe(200);
    expect((await call(runs, "GET", { cookie: adminCookie })).status).toBe(200);
  });

  it("a worker token may use /api/tasks/* and nothing else; only an operator or admin may own one", async () => {
    let tasks = 0;
    for (const r of routes) {
      for (const m of Object.keys(r.methods)) {
        const need = needOf(r, m);
        if (need === null) continue;
        const status = (await call(r, m, bearer("worker"))).status;
        if (r.path.startsWith("/api/tasks/")) {
          tasks++;
          expect([401, 403], `${m} ${r.path} as worker`).not.toContain(status);
        } else expect(status, `${m} ${r.path} as worker`).toBe(403);
      }
    }
    expect(tasks).toBe(4);
    const claim = routes.find((r) => r.path === "/api/tasks/claim")!;
    expect((await call(claim, "POST", bearer("worker"), { queue: "auth-test", worker: "w" })).status).toBe(204);
    expect((await call(claim, "POST", bearer("reviewer"), { queue: "auth-test", worker: "w" })).status).toBe(403);
    const { getRuntime } = await import("../lib/runtime");
    const rt = await getRuntime();
    await expect(rt.accounts.createToken("reviewer-user", "w", "worker")).rejects.toThrow(/worker token needs an operator or admin/);
    // a worker token bound to queues claims from those only; only a worker token carries queues
    const bound = (await rt.accounts.createToken("operator-user", "publisher-bot", "worker", ["publisher", "auth-test"])).token;
    const asBound = { authorization: `Bearer ${bound}` };
    expect((await call(claim, "POST", asBound, { queue: "auth-test", worker: "w" })).status).toBe(204);
    const refused = await call(claim, "POST", asBound, { queue: "payroll", worker: "w" });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: "queue_not_allowed", error: "token publisher-bot of operator-user may claim from publisher, auth-test only, not from payroll" });
    await expect(rt.accounts.createToken("operator-user", "x", "operator", ["publisher"])).rejects.toThrow(/only a worker token carries queues/);
    await expect(rt.accounts.createToken("operator-user", "x", "worker", ["Bad Queue"])).rejects.toThrow(/queues: "Bad Queue": a queue name/);
    await expect(rt.accounts.createToken("operator-user", "x", "worker", [])).rejects.toThrow(/name at least one queue/);
  });

  it("a decision is recorded as the signed-in person's; an operator starts runs but a reviewer cannot", async () => {
    const runs = routes.find((r) => r.path === "/api/runs")!;
    expect((await call(runs, "POST", bearer("reviewer"), { workflow: "swiss-army", input: { request: "x" } })).status).toBe(403);
    const started = await call(runs, "POST", bearer("operator"), { workflow: "swiss-army", input: { request: "Write a retry helper with backoff" } });
    expect(started.status).toBe(201);
    const { id } = await started.json();
    const { getRuntime } = await import("../lib/runtime");
    const rt = await getRuntime();
    const waiting = await rt.engine.waitFor(id, inState("HUMAN_REVIEW"));
    const decide = routes.find((r) => r.path === "/api/reviews/[id]/decision")!;
    const res = await decide.methods.POST(
      new Request(`${H}/api/reviews/${waiting.reviewId}/decision`, { method: "POST", headers: { host: "localhost:3000", "content-type": "application/json", ...bearer("reviewer") }, body: JSON.stringify({ decision: "approve", reviewer: "someone-else" }) }),
      { params: Promise.resolve({ id: waiting.reviewId! }) },
    );
    expect(res.status).toBe(200);
    expect((await rt.store.getReview(waiting.reviewId!))!.reviewer).toBe("reviewer-user");
    // a decision sent as a plain event is the sender's too
    const again = await call(runs, "POST", bearer("operator"), { workflow: "swiss-army", input: { request: "Write a retry helper with jitter" } });
    const second = await rt.engine.waitFor((await again.json()).id, inState("HUMAN_REVIEW"));
    const events = routes.find((r) => r.path === "/api/runs/[id]/events")!;
    const sent = await events.methods.POST(
      new Request(`${H}/api/runs/${second.id}/events`, { method: "POST", headers: { host: "localhost:3000", "content-type": "application/json", ...bearer("operator") }, body: JSON.stringify({ type: "APPROVE", reviewer: "someone-else" }) }),
      { params: Promise.resolve({ id: second.id }) },
    );
    expect(sent.status).toBe(200);
    expect((await rt.store.getReview(second.reviewId!))!.reviewer).toBe("operator-user");
  });

  it("five failed sign-ins for a name lock it for 15 minutes (429), right password or not", async () => {
    const login = routes.find((r) => r.path === "/api/auth/login")!;
    for (let i = 0; i < 5; i++) expect((await call(login, "POST", {}, { name: "viewer-user", password: `wrong-${i}-password` })).status).toBe(401);
    const locked = await call(login, "POST", {}, { name: "viewer-user", password: "viewer-password-123" });
    expect(locked.status).toBe(429);
    expect((await locked.json()).error).toMatch(/too many failed sign-ins/);
    // another name is not affected
    expect((await call(login, "POST", {}, { name: "reviewer-user", password: "reviewer-password-123" })).status).toBe(200);
  });

  it("tokens are stored hashed and stop working when revoked; sign-in failures say nothing about which part was wrong", async () => {
    const { getRuntime } = await import("../lib/runtime");
    const rt = await getRuntime();
    const rows = await rt.db.apiToken.findMany();
    expect(JSON.stringify(rows)).not.toContain(tokens.viewer);
    const me = routes.find((r) => r.path === "/api/auth/me")!;
    expect((await (await call(me, "GET", bearer("viewer"))).json()).user).toMatchObject({ name: "viewer-user", role: "viewer", via: "token" });
    const row = rows.find((r) => r.role === "viewer")!;
    await rt.accounts.revokeToken(row.id);
    expect((await call(me, "GET", bearer("viewer"))).status).toBe(401);
    // a token may not exceed its owner's role
    await expect(rt.accounts.createToken("viewer-user", "escalate", "admin")).rejects.toThrow(/cannot have role admin/);
    const login = routes.find((r) => r.path === "/api/auth/login")!;
    const wrongPass = await call(login, "POST", {}, { name: "admin-user", password: "nope-nope-nope" });
    const noUser = await call(login, "POST", {}, { name: "nobody", password: "nope-nope-nope" });
    expect(wrongPass.status).toBe(401);
    expect(await wrongPass.json()).toEqual(await noUser.json());
    // signing out ends the session
    const logout = routes.find((r) => r.path === "/api/auth/logout")!;
    expect((await call(logout, "POST", { cookie: adminCookie })).status).toBe(200);
    expect((await call(me, "GET", { cookie: adminCookie })).status).toBe(401);
  });

  it("a token's last use is recorded to the minute: many calls within a minute write it once", async () => {
    const { getRuntime } = await import("../lib/runtime");
    const rt = await getRuntime();
    const clock = new ManualClock(Date.parse("2026-11-24T10:00:00Z"));
    const accounts = new Accounts(rt.db, clock);
    const { id, token } = await accounts.createToken("operator-user", "last-used", "operator");
    const lastUsed = async () => (await rt.db.apiToken.findUnique({ where: { id } }))!.lastUsedAt?.getTime() ?? null;
    expect(await lastUsed()).toBeNull();
    expect(await accounts.fromToken(token)).toMatchObject({ name: "operator-user", via: "token" });
    const first = await lastUsed();
    expect(first).toBe(clock.now());
    clock.advance(30_000);
    expect(await accounts.fromToken(token)).not.toBeNull();
    expect(await lastUsed()).toBe(first); // within the minute: not written again
    clock.advance(30_000);
    expect(await accounts.fromToken(token)).not.toBeNull();
    expect(await lastUsed()).toBe(clock.now());
  });

  it("after sign-in, only a path on this site is followed (no open redirect)", () => {
    expect(sameSitePath("/runs/abc?tab=1")).toBe("/runs/abc?tab=1");
    expect(sameSitePath("/runs?q=a%20b&from=http://x#top")).toBe("/runs?q=a%20b&from=http://x#top");
    expect(sameSitePath("/runs/./abc/../def")).toBe("/runs/def");
    const evil = [
      "//evil.example", "/\\evil.example", "https://evil.example/x", "http:evil.example", "javascript:alert(1)", "evil.example/x", "",
      "/.//evil.example/x", "/./\\evil.example", "/..//evil.example", "/a/..//evil.example", "/../../evil.example/..//evil",
      "/%2F%2Fevil.example", "/%2f/evil.example", "/%5Cevil.example", "/%5c%5cevil.example", "/%252F%252Fevil.example", "/.%2F%2Fevil",
      "/\tevil", "/\t/evil.example", "/\n/evil.example", "/\r//evil.example", "/%09/evil.example", "/%0a/evil.example", "/\u0000/x", "/\u007f/x", "/\u0085/x",
      "/\\/evil.example", "\\/evil.example", "/%E0%A4%A", "/x".padEnd(3000, "x"),
      undefined, null, 42, ["/a"],
    ];
    for (const value of evil) expect(sameSitePath(value), JSON.stringify(value)).toBe("/");
  });

  it("every page checks the session itself (a layout is not re-rendered when the app navigates)", () => {
    const pages = (function walk(dir: string): string[] {
      return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name === "page.tsx" ? [path.join(dir, e.name)] : []));
    })("app").filter((f) => f !== path.join("app", "login", "page.tsx"));
    expect(pages.length).toBeGreaterThanOrEqual(10);
    for (const f of pages) expect(fs.readFileSync(f, "utf8"), f).toMatch(/^export default async function \w+\(.*\) \{\n  (?:const \w+ = )?await requireViewer\(\);$/m);
  });

  it("every server action checks the role before it does anything", () => {
    const actions = (function walk(dir: string): string[] {
      return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(dir, e.name)] : []));
    })("app").filter((f) => fs.readFileSync(f, "utf8").startsWith('"use server"'));
    expect(actions.length).toBeGreaterThanOrEqual(8);
    for (const f of actions) {
      const src = fs.readFileSync(f, "utf8");
      const fns = [...src.matchAll(/^export async function (\w+).*\{\n(.*)/gm)];
      expect(fns.length, f).toBeGreaterThan(0);
      for (const [, name, first] of fns) expect(first, `${f}: ${name}`).toMatch(/await requireRole\("(viewer|reviewer|operator|admin)"\)/);
    }
  });

  it("a refused server action answers 401 / 403 (Next.js's unauthorized() / forbidden()), not an error (500 and a stack trace)", async () => {
    const nextConfig = (await import("../next.config")).default;
    expect(nextConfig.experimental?.authInterrupts).toBe(true); // without it forbidden() is a plain Error
    process.env.__NEXT_EXPERIMENTAL_AUTH_INTERRUPTS = "true"; // what Next.js sets from that option
    const { isHTTPAccessFallbackError, getAccessFallbackHTTPStatus } = await import("next/dist/client/components/http-access-fallback/http-access-fallback");
    const { requireRole } = await import("../app/session");
    const status = async (need: "viewer" | "admin") => {
      try {
        await requireRole(need);
        return 200;
      } catch (e) {
        expect(isHTTPAccessFallbackError(e), String(e)).toBe(true);
        return getAccessFallbackHTTPStatus(e as never);
      }
    };
    jar.session = null;
    expect(await status("viewer")).toBe(401);
    const login = routes.find((r) => r.path === "/api/auth/login")!;
    const res = await call(login, "POST", {}, { name: "operator-user", password: "operator-password-123" });
    expect(res.status).toBe(200);
    jar.session = res.headers.get("set-cookie")!.split(";")[0].split("=")[1];
    expect(await status("viewer")).toBe(200);
    expect(await status("admin")).toBe(403);
    // a server action refused that way: the settings page's (admin) by an operator
    const { testConnectionAction } = await import("../app/settings/actions");
    await expect(testConnectionAction("default")).rejects.toSatisfy((e: unknown) => isHTTPAccessFallbackError(e) && getAccessFallbackHTTPStatus(e) === 403);
    jar.session = "not-a-session";
    expect(await status("viewer")).toBe(401);
  });

  it("GET /api/health: anonymous callers get { status } only; signed-in ones (any role) the details", async () => {
    const health = routes.find((r) => r.path === "/api/health")!;
    const anonymous = await call(health, "GET");
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toEqual({ status: "ok" });
    const bad = await call(health, "GET", { authorization: "Bearer sy_not-a-token" });
    expect(await bad.json()).toEqual({ status: "ok" });
    const viewer = await (await call(health, "GET", bearer("reviewer"))).json();
    expect(viewer).toMatchObject({ status: "ok", runs: expect.any(Object), model: expect.any(String), contextManager: expect.any(Object), database: expect.any(Object) });
  });
});
