// Who is signed in, for pages and server actions (SWITCHYARD_AUTH=on; otherwise everyone is the
// one local user and every check passes). API routes check the same roles in lib/api/http.ts.
import { cookies } from "next/headers";
import { forbidden, redirect, unauthorized } from "next/navigation";
import { cache } from "react";
import { SESSION_COOKIE, type Principal } from "@/lib/auth/accounts";
import { atLeast, authEnabled, type Role } from "@/lib/auth/roles";
import { getRuntime } from "@/lib/runtime";

/** The signed-in person (one lookup per request, however many callers). */
export const currentUser = cache(async (): Promise<Principal | null> => {
  if (!authEnabled()) return null;
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  return (await getRuntime()).accounts.fromSession(token);
});

/**
 * For pages: with accounts on, a page renders only for a valid session, else it goes to /login.
 * Each page asks itself (layouts are not re-rendered when the app navigates between pages).
 */
export async function requireViewer(): Promise<Principal | null> {
  if (!authEnabled()) return null;
  const who = await currentUser();
  if (!who) redirect("/login");
  return who;
}

/**
 * For server actions: refuses unless the signed-in person has `need` (always passes with accounts
 * off). A refusal is Next.js's 401 (`unauthorized()`: no session) or 403 (`forbidden()`: too low
 * a role), shown by app/unauthorized.tsx and app/forbidden.tsx; not an error (500, a logged
 * stack trace).
 */
export async function requireRole(need: Role): Promise<Principal | null> {
  if (!authEnabled()) return null;
  const who = await currentUser();
  if (!who) unauthorized();
  if (!atLeast(who.role, need)) forbidden();
  return who;
}
