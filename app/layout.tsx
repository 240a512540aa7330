import type { Metadata } from "next";
import { AlertBanner } from "@/components/alerts/alert-banner";
import { Nav } from "@/components/nav";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Switchyard", template: "%s · Switchyard" },
  description: "Run LLM-agent workflows as durable state machines, and watch and steer them live.",
};

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen antialiased">
        <Nav />
        <AlertBanner />
        <main className="mx-auto w-full max-w-[1440px] px-4 py-6 sm:px-6">{children}</main>
      </body>
    </html>
  );
}
