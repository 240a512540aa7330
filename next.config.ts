import type { NextConfig } from "next";

/**
 * On every response: no framing by other sites (clickjacking), and images only from this site
 * (Markdown outputs show other images as links: components/ui/markdown.tsx). The CSP names only
 * these directives, so scripts and styles are not restricted by it.
 */
export const SECURITY_HEADERS = [
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Content-Security-Policy", value: "frame-ancestors 'none'; img-src 'self' data: blob:" },
];

const config: NextConfig = {
  // native and wasm modules load from node_modules at run time instead of being bundled
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "pg", "pg-boss", "elkjs", "@opentelemetry/sdk-trace-node", "@opentelemetry/exporter-trace-otlp-http", "@opentelemetry/resources"],
  poweredByHeader: false,
  // npm test runs `tsc` itself and builds with SWITCHYARD_BUILD_TYPECHECK=0, so types are checked once
  typescript: { tsconfigPath: "tsconfig.json", ignoreBuildErrors: process.env.SWITCHYARD_BUILD_TYPECHECK === "0" },
  // forbidden() and unauthorized() (app/session.ts): a refused server action answers 403 / 401
  experimental: { authInterrupts: true },
  headers: async () => [{ source: "/:path*", headers: SECURITY_HEADERS }],
};

export default config;
