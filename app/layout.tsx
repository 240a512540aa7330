import type { Metadata } from "next";
import { AlertBanner } from "@/components/alerts/alert-banner";
import { Nav } from "@/components/nav";
import { UserBar } from "@/components/auth/user-bar";
import { headers } from "next/headers";
import { connection } from "next/server";
import { redirect } from "next/navigation";
import { authEnabled } from "@/lib/auth/roles";
import { builtInNav } from "@/lib/machines/registry";
import { currentUser } from "./session";
import { RoleProvider } from "@/components/auth/role";
import { SkipLink } from "@/components/ui/skip-link";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Switchyard", template: "%s · Switchyard" },
  description: "Run LLM-agent workflows as durable state machines, and watch and steer them live.",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // rendered for each request: the nav's workflow links come from the catalog the running server
  // was given (instrumentation.ts), which a build's prerendering does not have
  await connection();
  // accounts on: a page needs a valid session (the proxy sent requests without a cookie to /login)
  const who = await currentUser();
  if (authEnabled() && !who) {
    const path = (await headers()).get("x-sy-path") ?? "/";
    if (!path.startsWith("/login")) redirect(`/login?next=${encodeURIComponent(path)}`);
  }
  return (
    <html lang="en">
      <body className="min-h-screen antialiased">
        <SkipLink />
        {/* before sign-in: no counts, no names */}
        <Nav signedIn={!authEnabled() || !!who} extra={builtInNav()} />
        {who && <UserBar name={who.name} role={who.role} />}
        {(!authEnabled() || who) && <AlertBanner />}
        <RoleProvider role={who?.role ?? null}>
          <main id="main" tabIndex={-1} className="mx-auto w-full max-w-[1440px] px-4 py-6 outline-none sm:px-6">
            {children}
          </main>
        </RoleProvider>
      </body>
    </html>
  );
}
