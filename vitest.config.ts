import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["test/**/*.test.ts"],
    // builds @switchyard/client's dist/ when it is missing or stale (scripts/build-client.mjs)
    globalSetup: ["test/support/client-dist.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
