// With accounts on (SWITCHYARD_AUTH=on), pages need a session: a request without the session
// cookie goes to /login first. The cookie itself is checked against the database by the layout
// (app/session.ts), API routes by lib/api/http.ts. With accounts off this does nothing.
import { NextResponse, type NextRequest } from "next/server";

export function proxy(req: NextRequest) {
  if (process.env.SWITCHYARD_AUTH?.trim().toLowerCase() !== "on") return NextResponse.next();
  const { pathname, search } = req.nextUrl;
  if (pathname.startsWith("/api/")) return NextResponse.next();
  if (pathname !== "/login" && !req.cookies.get("sy_session")) {
    return NextResponse.redirect(new URL(`/login?next=${encodeURIComponent(pathname + search)}`, req.url));
  }
  const headers = new Headers(req.headers);
  headers.set("x-sy-path", pathname + search);
  return NextResponse.next({ request: { headers } });
}

export const config = { matcher: ["/((?!_next/static|_next/image|favicon.ico|icon.svg).*)"] };
