import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["test/**/*.test.ts", "workflows/**/*.test.ts"],
    // one migrated template database per dialect; tests copy it (test/global-setup.ts); and
    // @switchyard/client's dist/ built when it is missing or stale (scripts/build-client.mjs)
    globalSetup: ["./test/global-setup.ts", "test/support/client-dist.ts"],
    // the core is given its built-in workflows by each program's entry point; the tests' is this
    setupFiles: ["test/support/provide-workflows.ts"],
    // hang guards, not speed limits: a test on a busy shared machine may take several times as long
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // vitest's default is one worker per core but one (2 cores: 1); many files here wait on child
    // processes, servers and timers, so two workers finish sooner even on a 2-core machine
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
