// Cross-site request refusal for the REST API's state-changing methods, and for server actions
// (proxy.ts runs the same check in front of Next.js's own). A browser says where a request comes
// from (Sec-Fetch-Site, Origin); a request another site's page made is refused with 403, so a
// page elsewhere cannot start, abort, decide or upload through a user's browser. Scripts and CI
// (curl, fetch from Node) send neither header and are not affected.
//
// The server's own host is the Host header (and the URL the server itself built). X-Forwarded-Host,
// which any client can send, counts only behind a reverse proxy the operator declared with
// SWITCHYARD_TRUST_PROXY (the proxy then sets it and overwrites what clients send).
import { EngineError } from "../engine/errors";

type Env = Record<string, string | undefined>;

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export class CrossSiteError extends EngineError {
  constructor(from: string) {
    super(`cross-site request refused: ${from} may not change anything here`, 403, "cross_site");
  }
}

/** SWITCHYARD_TRUST_PROXY=1|true|on|yes: a reverse proxy in front sets X-Forwarded-Host. */
export function trustProxy(env: Env = process.env): boolean {
  return /^(1|true|on|yes)$/i.test(env.SWITCHYARD_TRUST_PROXY?.trim() ?? "");
}

/** The first host of an X-Forwarded-Host header (a chain of proxies lists several). */
const firstForwarded = (v: string | null) => v?.split(",")[0]?.trim() || null;

/** Why a request must be refused as cross-site, or null when it may go on. */
export function crossSiteReason(method: string, headers: Headers, url: string, env: Env = process.env): string | null {
  if (SAFE.has(method.toUpperCase())) return null;
  if (headers.get("sec-fetch-site") === "cross-site") return headers.get("origin") ?? "another site";
  const origin = headers.get("origin");
  if (!origin) return null;
  if (origin === "null") return "an opaque origin";
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return "a malformed Origin";
  }
  const own = [trustProxy(env) ? firstForwarded(headers.get("x-forwarded-host")) : null, headers.get("host"), safeHost(url)].filter(Boolean);
  return own.includes(host) ? null : origin;
}

/** Throws CrossSiteError for a state-changing request another site's page made. */
export function assertSameOrigin(req: Request): void {
  const why = crossSiteReason(req.method, req.headers, req.url);
  if (why) throw new CrossSiteError(why);
}

function safeHost(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}
