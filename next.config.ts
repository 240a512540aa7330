import type { NextConfig } from "next";

/**
 * On every response: no framing by other sites (clickjacking), and images only from this site
 * (Markdown outputs show other images as links: components/ui/markdown.tsx). The CSP names only
 * these directives, so scripts and styles are not restricted by it.
 */
const CSP = "frame-ancestors 'none'; img-src 'self' data: blob:";
export const SECURITY_HEADERS = [
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Content-Security-Policy", value: CSP },
];

/**
 * The API reference (Swagger UI, bundled: app/api-reference) also may fetch and load fonts from
 * this site only: "Try it out" cannot be pointed at another server, and nothing it renders can
 * call out. (Next.js applies the last matching entry's value of a header.)
 */
export const API_REFERENCE_CSP = `${CSP}; connect-src 'self'; font-src 'self'`;

const config: NextConfig = {
  // native and wasm modules load from node_modules at run time instead of being bundled
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "pg", "pg-boss", "elkjs", "@opentelemetry/sdk-trace-node", "@opentelemetry/exporter-trace-otlp-http", "@opentelemetry/resources"],
  poweredByHeader: false,
  // npm test runs `tsc` itself and builds with SWITCHYARD_BUILD_TYPECHECK=0, so types are checked once
  typescript: { tsconfigPath: "tsconfig.json", ignoreBuildErrors: process.env.SWITCHYARD_BUILD_TYPECHECK === "0" },
  // forbidden() and unauthorized() (app/session.ts): a refused server action answers 403 / 401
  // Turbopack's build cache (on by default) speeds up the next build of a changed checkout; CI
  // builds a fresh clone once, so writing it (~15 s, measured) is skipped there
  experimental: { authInterrupts: true, turbopackFileSystemCacheForBuild: !process.env.CI },
  headers: async () => [
    { source: "/:path*", headers: SECURITY_HEADERS },
    { source: "/api-reference", headers: [{ key: "Content-Security-Policy", value: API_REFERENCE_CSP }] },
  ],
};

export default config;
