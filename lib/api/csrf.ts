// Cross-site request refusal for the REST API's state-changing methods. A browser says where a
// request comes from (Sec-Fetch-Site, Origin); a request another site's page made is refused
// with 403, so a page elsewhere cannot start, abort, decide or upload through a user's browser.
// Scripts and CI (curl, fetch from Node) send neither header and are not affected. Server
// actions get the same check from Next.js itself (it compares Origin with Host).
import { EngineError } from "../engine/errors";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export class CrossSiteError extends EngineError {
  constructor(from: string) {
    super(`cross-site request refused: ${from} may not change anything here`, 403, "cross_site");
  }
}

/** Throws CrossSiteError for a state-changing request another site's page made. */
export function assertSameOrigin(req: Request): void {
  if (SAFE.has(req.method.toUpperCase())) return;
  const site = req.headers.get("sec-fetch-site");
  if (site === "cross-site") throw new CrossSiteError(req.headers.get("origin") ?? "another site");
  const origin = req.headers.get("origin");
  if (!origin || origin === "null") {
    if (origin === "null") throw new CrossSiteError("an opaque origin");
    return;
  }
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    throw new CrossSiteError("a malformed Origin");
  }
  const own = [req.headers.get("x-forwarded-host"), req.headers.get("host"), safeHost(req.url)].filter(Boolean);
  if (!own.includes(host)) throw new CrossSiteError(origin);
}

function safeHost(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}
