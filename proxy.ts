// Runs in front of pages and server actions (not /api: the matcher leaves it out, so Next.js
// does not buffer API request bodies for a proxy and cut them at its 10 MB clone limit — the
// run import takes 50 MB, knowledge uploads 25 MiB; API routes do their own checks in
// lib/api/http.ts).
// - X-Forwarded-Host is dropped unless SWITCHYARD_TRUST_PROXY declares a reverse proxy in front:
//   Next.js's own server-action origin check believes it, and any client can send it.
// - A state-changing request (a server action) another site's page made is refused with 403
//   here, before Next.js's check, which would answer 500 and log a stack trace.
// - With accounts on (SWITCHYARD_AUTH=on), pages need a session: a request without the session
//   cookie goes to /login first. The cookie itself is checked against the database by the
//   layout (app/session.ts).
import { NextResponse, type NextRequest } from "next/server";
import { crossSiteReason, trustProxy } from "@/lib/api/csrf";

export function proxy(req: NextRequest) {
  const headers = new Headers(req.headers);
  let changed = false;
  if (!trustProxy() && headers.has("x-forwarded-host")) {
    headers.delete("x-forwarded-host");
    changed = true;
  }
  const crossSite = crossSiteReason(req.method, headers, req.url);
  if (crossSite) {
    return NextResponse.json({ error: `cross-site request refused: ${crossSite} may not change anything here`, code: "cross_site" }, { status: 403 });
  }
  if (process.env.SWITCHYARD_AUTH?.trim().toLowerCase() === "on") {
    const { pathname, search } = req.nextUrl;
    if (pathname !== "/login" && !req.cookies.get("sy_session")) {
      return NextResponse.redirect(new URL(`/login?next=${encodeURIComponent(pathname + search)}`, req.url));
    }
    headers.set("x-sy-path", pathname + search);
    changed = true;
  }
  return changed ? NextResponse.next({ request: { headers } }) : NextResponse.next();
}

export const config = { matcher: ["/((?!api/|_next/static|_next/image|favicon.ico|icon.svg).*)"] };
