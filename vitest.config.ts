import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";

// engine and infrastructure tests under test/ (on the fixture workflows of test/fixtures/workflows);
// each workflow's own tests in its folder, workflows/<id>/test/
const include = ["test/**/*.test.ts", "workflows/**/*.test.ts"];

/**
 * What a test file may leave behind in its process for the next file, when files share one: the
 * environment, module mocks and fake timers, the app's route handlers and server (which keep their
 * runtime on globalThis), the sandbox's configuration, telemetry, globalThis itself, the catalog of
 * workflows, process-wide listeners. A file that does any of it runs on its own (vitest's
 * isolation: a worker thread of its own, or a process, see NEEDS_PROCESS); the others share their
 * worker's process and its loaded modules, which halves their CPU time (each isolated file loads
 * the engine, the workflows and Prisma again). A file that needs to run on its own for another
 * reason says `vitest: isolate` in a comment. Only code is searched, not comment lines (a comment
 * naming provideWorkflows moved a file out of the shared process). A file the pattern finds that
 * puts back everything it changes (its spies restored in the file) says `vitest: shared` and why.
 */
const LEAVES_STATE =
  /process\.env\.[A-Za-z_]+ *=[^=]|process\.env\[[^\]]*\] *=[^=]|delete process\.env|vi\.(mock|doMock|stubEnv|stubGlobal|useFakeTimers|spyOn)|\.\.\/app\/|@\/app\/|app-server|configureSandbox|lib\/sandbox|globalThis|telemetry|setRequestAccounts|provideWorkflows|process\.chdir|process\.on\(|Symbol\.for/;
/**
 * Of those, the files that need a whole process, not a worker thread of their own: process-wide
 * listeners, the working directory, the process's memory or handles (a thread shares them with the
 * other thread's file). A file that needs one for another reason says `vitest: process`.
 */
const NEEDS_PROCESS = /process\.on\(|process\.chdir|memoryUsage|getActiveResourcesInfo/;
const root = import.meta.dirname;
const text = (f: string) => fs.readFileSync(path.join(root, f), "utf8");
/** the file without its comment lines (`//`, `/*`, ` *`): what the patterns above are looked for in */
const code = (t: string) => t.replace(/^[ \t]*(\/\/|\/\*|\*).*$/gm, "");
const isolated = (t: string) => /vitest: isolate|vitest: process/.test(t) || (LEAVES_STATE.test(code(t)) && !/vitest: shared/.test(t));
const own = ["test", "workflows"]
  .flatMap((dir) => fs.readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" }).map((f) => `${dir}/${f.split(path.sep).join("/")}`))
  .filter((f) => f.endsWith(".test.ts") && !f.includes("node_modules/") && isolated(text(f)));
const ownProcess = own.filter((f) => /vitest: process/.test(text(f)) || NEEDS_PROCESS.test(code(text(f))));

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    // (the files are the projects' below: a project extends this and would add to a list here)
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
    // a file of its own runs in a worker thread of its own (process.env, globalThis and the loaded
    // modules are the thread's): measured on 6 small files, 18% less CPU than a process each
    // (node's start and its per-process set-up are skipped); the few that need a process get one
    projects: [
      { extends: true, test: { name: "own process", include: ownProcess, isolate: true } },
      { extends: true, test: { name: "own thread", include: own.filter((f) => !ownProcess.includes(f)), isolate: true, pool: "threads" } },
      { extends: true, test: { name: "shared process", include, exclude: [...configDefaults.exclude, ...own], isolate: false } },
    ],
  },
});
