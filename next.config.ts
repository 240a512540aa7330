import type { NextConfig } from "next";

const config: NextConfig = {
  // native and wasm modules load from node_modules at run time instead of being bundled
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "pg", "pg-boss", "elkjs"],
  poweredByHeader: false,
  // npm test runs `tsc` itself and builds with SWITCHYARD_BUILD_TYPECHECK=0, so types are checked once
  typescript: { tsconfigPath: "tsconfig.json", ignoreBuildErrors: process.env.SWITCHYARD_BUILD_TYPECHECK === "0" },
  // forbidden() and unauthorized() (app/session.ts): a refused server action answers 403 / 401
  experimental: { authInterrupts: true },
};

export default config;
