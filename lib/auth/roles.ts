// Roles and what each may do. viewer reads; reviewer also decides reviews; operator also starts,
// steers, aborts, forks and imports runs; admin also changes workflows, webhooks, alerts,
// knowledge, settings and users. Every API route and server action asks `allowed`.

export const ROLES = ["viewer", "reviewer", "operator", "admin"] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (x: unknown): x is Role => typeof x === "string" && (ROLES as readonly string[]).includes(x);
export const atLeast = (have: Role, need: Role) => ROLES.indexOf(have) >= ROLES.indexOf(need);

/** Paths anyone may call, signed in or not. */
const PUBLIC: RegExp[] = [/^\/api\/health$/, /^\/api\/auth\/(login|logout)$/];

/** The role a request needs (null: none). Reads need viewer; changes what the table says. */
export function requiredRole(method: string, path: string): Role | null {
  if (PUBLIC.some((p) => p.test(path))) return null;
  const m = method.toUpperCase();
  if (m === "GET" || m === "HEAD" || m === "OPTIONS") return "viewer";
  if (/^\/api\/reviews\/[^/]+\/decision$/.test(path)) return "reviewer";
  if (/^\/api\/runs(\/import)?$/.test(path) || /^\/api\/runs\/[^/]+\/(events|abort|fork)$/.test(path) || /^\/api\/profile$/.test(path)) return "operator";
  return "admin";
}

export function authEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.SWITCHYARD_AUTH?.trim().toLowerCase() === "on";
}

/** `next` as a path on this site, or "/" (no open redirect: "//evil", "/\\evil", "https://evil" resolve elsewhere) */
export function sameSitePath(next: unknown): string {
  if (typeof next !== "string") return "/";
  try {
    const u = new URL(next, "http://x");
    return u.host === "x" ? u.pathname + u.search : "/";
  } catch {
    return "/";
  }
}
