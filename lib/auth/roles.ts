// Roles and what each may do. viewer reads; reviewer also decides reviews; operator also starts,
// steers, aborts, forks and imports runs and manages schedules; admin also changes workflows, webhooks, alerts,
// knowledge, settings and users. Every API route and server action asks `allowed`. A workflow's
// own endpoint may declare the role it needs (lib/machines/workflow-api.ts); otherwise this table says.
// An API token may instead have the role worker: an external worker that may use
// /api/tasks/* and nothing else; operators and admins may use /api/tasks/* too.

export const ROLES = ["viewer", "reviewer", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** a role for API tokens only, outside the order above */
export const WORKER = "worker" as const;
export const TOKEN_ROLES = [...ROLES, WORKER] as const;
export type TokenRole = (typeof TOKEN_ROLES)[number];

export const isRole = (x: unknown): x is Role => typeof x === "string" && (ROLES as readonly string[]).includes(x);
export const isTokenRole = (x: unknown): x is TokenRole => typeof x === "string" && (TOKEN_ROLES as readonly string[]).includes(x);
/** `have` includes `need` (a worker includes no person's role) */
export const atLeast = (have: TokenRole, need: Role) => have !== WORKER && ROLES.indexOf(have) >= ROLES.indexOf(need);

/** May a caller with role `have` call a route that needs `need`? */
export function permits(have: TokenRole, need: Role | typeof WORKER): boolean {
  if (need === WORKER) return have === WORKER || atLeast(have, "operator");
  return atLeast(have, need);
}

/** Paths anyone may call, signed in or not. */
const PUBLIC: RegExp[] = [/^\/api\/health$/, /^\/api\/auth\/(login|logout)$/];

/** The role a request needs (null: none). Reads need viewer; changes what the table says. */
export function requiredRole(method: string, path: string): Role | typeof WORKER | null {
  if (PUBLIC.some((p) => p.test(path))) return null;
  if (/^\/api\/tasks(\/|$)/.test(path)) return WORKER;
  const m = method.toUpperCase();
  if (m === "GET" || m === "HEAD" || m === "OPTIONS") return "viewer";
  if (/^\/api\/reviews\/[^/]+\/decision$/.test(path)) return "reviewer";
  if (/^\/api\/schedules(\/[^/]+(\/trigger)?)?$/.test(path)) return "operator";
  if (/^\/api\/runs(\/import|\/bulk)?$/.test(path) || /^\/api\/runs\/[^/]+\/(events|abort|fork|replay)$/.test(path) || /^\/api\/evals$/.test(path)) return "operator";
  return "admin";
}

export function authEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.SWITCHYARD_AUTH?.trim().toLowerCase() === "on";
}

const HERE = "http://switchyard.invalid";
// control characters (the URL parser drops tabs and newlines: "/\t/evil" becomes "//evil"), DEL,
// C1 controls, and backslashes (browsers read "\" as "/")
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\\]/;

/** `s` percent-decoded until it stops changing (a few rounds); null when its encoding is malformed. */
function decoded(s: string): string | null {
  try {
    for (let i = 0; i < 3; i++) {
      const d = decodeURIComponent(s);
      if (d === s) break;
      s = d;
    }
    return s;
  } catch {
    return null;
  }
}

/**
 * `next` as a path on this site, or "/": no open redirect. It must start with one "/", resolve to
 * this origin, and neither it nor its path, raw or percent-decoded, may hold control characters,
 * backslashes or "//" ("//evil", "/\\evil", "/.//evil" resolving to "//evil", "/%2F%2Fevil").
 */
export function sameSitePath(next: unknown): string {
  if (typeof next !== "string" || !next.startsWith("/") || next.length > 2048) return "/";
  const plain = decoded(next);
  if (plain === null || UNSAFE.test(next) || UNSAFE.test(plain)) return "/";
  let u: URL;
  try {
    u = new URL(next, HERE);
  } catch {
    return "/";
  }
  if (u.origin !== HERE) return "/";
  const path = decoded(u.pathname);
  if (path === null || path.includes("//") || UNSAFE.test(path)) return "/";
  const out = u.pathname + u.search + u.hash;
  return new URL(out, HERE).origin === HERE ? out : "/";
}
