// Isolated code execution for the CODE processing mode (seed 004 §5: ExecuteInSandbox → FormatSuccess | FormatError).
//
// No containers here: the code runs in a WebAssembly engine inside a worker_threads Worker, one worker per run.
//   javascript — QuickJS (quickjs-emscripten, wasm); the guest sees no host object but a `console`.
//   python     — CPython (pyodide, wasm), loaded from node_modules/pyodide only; its file system is in memory.
// Limits: the engine's own (QuickJS memory/stack/interrupt, a wasm memory that cannot grow past memoryMb),
// the worker's resourceLimits, a wall-clock timeout enforced here (soft stop, then worker.terminate()), and an
// output cap on stdout+stderr. See lib/sandbox/worker.mjs for the containment layers.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { z } from "zod";

export type Language = "javascript" | "python";

export interface SandboxRequest {
  language: Language;
  code: string;
  /** wall-clock limit for the program (the interpreter's start-up is not counted); default 5000, max 30000 */
  timeoutMs?: number;
  /** engine memory: QuickJS's whole heap / what CPython may allocate beyond its loaded state; default 64, max 256 */
  memoryMb?: number;
  /** stdout + stderr together, in UTF-8 bytes; default 65536 */
  maxOutputBytes?: number;
}

export type SandboxErrorKind = "runtime" | "timeout" | "memory" | "output_limit" | "unavailable" | "crash";

export interface SandboxResult {
  /** exit 0 */
  ok: boolean;
  /** 0 ok, 1 runtime error, 124 timeout, 137 memory, 125 output limit / sandbox failure */
  exitCode: number;
  stdout: string;
  stderr: string;
  /** the value of the program's last expression, JSON-safe (null when there is none) */
  returnValue: unknown;
  durationMs: number;
  /** the output (or the return value) was cut at maxOutputBytes */
  truncated: boolean;
  error: null | { kind: SandboxErrorKind; message: string };
  /** e.g. "quickjs-emscripten 0.32.0 (wasm)" */
  engine: string;
}

export const SANDBOX_LIMITS = {
  timeoutMs: { default: 5000, min: 10, max: 30_000 },
  memoryMb: { default: 64, min: 16, max: 256 },
  maxOutputBytes: { default: 65_536, min: 256, max: 1_048_576 },
  codeBytes: 100 * 1024,
} as const;

export const EXIT = { ok: 0, runtime: 1, timeout: 124, outputLimit: 125, sandboxFailure: 125, memory: 137 } as const;

const requestSchema = z.object({
  language: z.enum(["javascript", "python"]),
  code: z
    .string()
    .refine((s) => Buffer.byteLength(s, "utf8") <= SANDBOX_LIMITS.codeBytes, `code is longer than ${SANDBOX_LIMITS.codeBytes} bytes`),
  timeoutMs: z.number().int().min(SANDBOX_LIMITS.timeoutMs.min).max(SANDBOX_LIMITS.timeoutMs.max).optional(),
  memoryMb: z.number().int().min(SANDBOX_LIMITS.memoryMb.min).max(SANDBOX_LIMITS.memoryMb.max).optional(),
  maxOutputBytes: z.number().int().min(SANDBOX_LIMITS.maxOutputBytes.min).max(SANDBOX_LIMITS.maxOutputBytes.max).optional(),
});

type Normalized = Required<SandboxRequest>;

/** Validate and fill in the defaults; throws a readable message on a bad request. */
export function parseSandboxRequest(input: unknown): Normalized {
  const r = requestSchema.safeParse(input);
  if (!r.success) {
    throw new Error(r.error.issues.map((i) => `${i.path.join(".") || "request"}: ${i.message}`).join("; "));
  }
  return {
    language: r.data.language,
    code: r.data.code,
    timeoutMs: r.data.timeoutMs ?? SANDBOX_LIMITS.timeoutMs.default,
    memoryMb: r.data.memoryMb ?? SANDBOX_LIMITS.memoryMb.default,
    maxOutputBytes: r.data.maxOutputBytes ?? SANDBOX_LIMITS.maxOutputBytes.default,
  };
}

// ---------------------------------------------------------------- code blocks

const FENCE = /(^|\n)[ \t]*(```+|~~~+)[ \t]*([\w+#.-]*)[^\n]*\n([\s\S]*?)\n[ \t]*\2[ \t]*(?=\n|$)/;
const LANGS: Record<string, Language> = {
  "": "javascript",
  js: "javascript",
  javascript: "javascript",
  mjs: "javascript",
  node: "javascript",
  py: "python",
  python: "python",
  python3: "python",
};

/** The first fenced code block of a text: ```js / ```javascript / ```python / ```py (or unlabeled → javascript). */
export function codeBlock(text: string): { language: Language; code: string } | null {
  let rest = text.replace(/\r\n?/g, "\n");
  for (;;) {
    const m = FENCE.exec(rest);
    if (!m) return null;
    const language = LANGS[m[3].toLowerCase()];
    if (language) return { language, code: m[4] };
    // a block in another language (```json, ```bash): look further
    rest = rest.slice((m.index ?? 0) + m[0].length);
  }
}

// ---------------------------------------------------------------- worker plumbing

const MiB = 1024 * 1024;
const BOOT_TIMEOUT_MS: Record<Language, number> = { javascript: 15_000, python: 90_000 };
/** after a soft stop (interrupt) the worker gets this long to report before it is terminated */
const GRACE_MS = 400;
/** the worker's own V8 heap (the guest's memory is the engine's wasm memory, capped separately) */
const RESOURCE_LIMITS: Record<Language, { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number; stackSizeMb: number }> = {
  javascript: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
  python: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
};
const SPARE_IDLE_MS = 10 * 60_000;

function resolveWorkerPath(): string {
  const candidates: string[] = [];
  try {
    // the source location under vitest/tsx; in a bundle this may point elsewhere (or not be a file: URL)
    candidates.push(fileURLToPath(new URL("./worker.mjs", import.meta.url)));
  } catch {
    /* not a file URL */
  }
  // `next start` (and every script) runs from the repository root
  candidates.push(path.join(process.cwd(), "lib", "sandbox", "worker.mjs"));
  return candidates.find((p) => fs.existsSync(p)) ?? candidates[candidates.length - 1];
}

let workerPathCache: string | null = null;
function workerPath(): string {
  return (workerPathCache ??= resolveWorkerPath());
}

function packageVersion(name: string): string | null {
  try {
    const req = createRequire(workerPath());
    const file = req.resolve(`${name}/package.json`);
    return (JSON.parse(fs.readFileSync(/*turbopackIgnore: true*/ file, "utf8")) as { version?: string }).version ?? null;
  } catch {
    return null;
  }
}

function pythonFilesReason(): string | null {
  try {
    const req = createRequire(workerPath());
    const dir = path.dirname(req.resolve("pyodide/package.json"));
    for (const f of ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]) {
      if (!fs.existsSync(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ dir, f))) return `pyodide is installed without ${f}`;
    }
    return null;
  } catch {
    return "the pyodide package is not installed";
  }
}

type WorkerMsg =
  | { t: "ready"; engine: string; bootMs: number; bootKind: "full" | "snapshot" }
  | { t: "snapshot"; image: SharedArrayBuffer }
  | { t: "snapshot_failed"; message: string }
  | { t: "boot_error"; message: string }
  | { t: "out"; fd: 1 | 2; text: string }
  | { t: "truncated" }
  | {
      t: "result";
      exitCode: number;
      kind: SandboxErrorKind | null;
      message: string | null;
      returnJson?: string | null;
      durationMs: number;
      truncated: boolean;
    };

interface Booted {
  engine: string;
  bootMs: number;
  bootKind: "full" | "snapshot";
}

/** CPython's memory image right after boot (made once by the first Python worker; ~30 MB, shared with workers). */
const pySnapshot: { image: SharedArrayBuffer | null; requested: boolean; disabled: string | null } = {
  image: null,
  requested: false,
  disabled: null,
};

/** One worker thread, booted (engine loaded, thread locked down) and waiting for its single run. */
class SandboxWorker {
  readonly worker: Worker;
  readonly ctl = new Int32Array(new SharedArrayBuffer(16));
  readonly ready: Promise<Booted>;
  private listener: ((m: WorkerMsg) => void) | null = null;
  private onGone: ((why: { error?: Error; code?: number }) => void) | null = null;
  gone: { error?: Error; code?: number } | null = null;
  workerStderr = "";
  private bootTimer: NodeJS.Timeout | null = null;
  private readonly makesSnapshot: boolean;

  constructor(readonly language: Language) {
    let makeSnapshot = false;
    let snapshot: SharedArrayBuffer | null = null;
    if (language === "python" && settings.pythonSnapshot && !pySnapshot.disabled) {
      if (pySnapshot.image) snapshot = pySnapshot.image;
      else if (!pySnapshot.requested) makeSnapshot = pySnapshot.requested = true;
    }
    this.makesSnapshot = makeSnapshot;
    this.worker = new Worker(workerPath(), {
      workerData: { language, ctl: this.ctl.buffer, snapshot, makeSnapshot },
      resourceLimits: RESOURCE_LIMITS[language],
      env: {},
      execArgv: [],
      stdin: false,
      stdout: true,
      stderr: true,
      name: `sandbox-${language}`,
    });
    live.add(this);
    this.worker.stdout.resume();
    this.worker.stderr.on("data", (b: Buffer) => {
      this.workerStderr = (this.workerStderr + b.toString("utf8")).slice(-2000);
    });
    this.ready = new Promise<Booted>((resolve, reject) => {
      this.bootTimer = setTimeout(() => {
        reject(new Error(`the ${language} engine did not start within ${BOOT_TIMEOUT_MS[language]} ms`));
        void this.kill();
      }, BOOT_TIMEOUT_MS[language]);
      this.bootTimer.unref?.();
      this.worker.on("message", (m: WorkerMsg) => {
        if (m.t === "snapshot") {
          pySnapshot.image = m.image;
        } else if (m.t === "snapshot_failed") {
          pySnapshot.image = null;
          pySnapshot.disabled = m.message;
        } else if (m.t === "ready") {
          clearTimeout(this.bootTimer!);
          resolve({ engine: m.engine, bootMs: m.bootMs, bootKind: m.bootKind });
        } else if (m.t === "boot_error") {
          clearTimeout(this.bootTimer!);
          reject(new Error(m.message));
          void this.kill();
        } else this.listener?.(m);
      });
      const gone = (why: { error?: Error; code?: number }) => {
        if (this.gone) return;
        this.gone = why;
        live.delete(this);
        if (this.makesSnapshot && !pySnapshot.image) pySnapshot.requested = false;
        clearTimeout(this.bootTimer!);
        reject(why.error ?? new Error(`the sandbox worker exited (code ${why.code}) ${this.workerStderr.trim()}`.trim()));
        this.onGone?.(why);
      };
      this.worker.on("error", (error) => gone({ error }));
      this.worker.on("exit", (code) => gone({ code }));
    });
    this.ready.catch(() => {});
  }

  /** Start the worker's single run; its messages go to sink, an unexpected exit to onGone. */
  run(req: Normalized, sink: (m: WorkerMsg) => void, onGone: (why: { error?: Error; code?: number }) => void): void {
    this.listener = sink;
    this.onGone = onGone;
    if (this.gone) {
      onGone(this.gone);
      return;
    }
    this.worker.postMessage({ t: "run", code: req.code, timeoutMs: req.timeoutMs, memoryMb: req.memoryMb, maxOutputBytes: req.maxOutputBytes });
  }

  /** Soft stop: QuickJS's interrupt handler and CPython's interrupt buffer both watch this block. */
  stop(reason: 1 | 2): void {
    Atomics.compareExchange(this.ctl, 1, 0, reason);
    Atomics.store(this.ctl, 0, 2);
  }

  async kill(): Promise<void> {
    live.delete(this);
    try {
      await this.worker.terminate();
    } catch {
      /* already gone */
    }
  }
}

const live = new Set<SandboxWorker>();
const spares = new Map<Language, { w: SandboxWorker; timer: NodeJS.Timeout }>();
const lastBoot: Record<Language, { ms: number; engine: string; kind: "full" | "snapshot" } | null> = { javascript: null, python: null };
/** the latest start-up times by kind: a full boot (python: without a memory image) and one restored from the image */
const bootTimes: Record<Language, { full: number | null; snapshot: number | null }> = {
  javascript: { full: null, snapshot: null },
  python: { full: null, snapshot: null },
};
function noteBoot(language: Language, b: Booted): void {
  lastBoot[language] = { ms: b.bootMs, engine: b.engine, kind: b.bootKind };
  bootTimes[language][b.bootKind] = Math.round(b.bootMs);
  bootFailure[language] = null;
}
const bootFailure: Record<Language, string | null> = { javascript: null, python: null };
let running = 0;
const queue: Array<() => void> = [];
const settings = {
  maxConcurrent: Math.max(1, Math.min(4, os.availableParallelism?.() ?? os.cpus().length)),
  maxQueued: 64,
  prewarmPython: true,
  pythonSnapshot: true,
};

/** Tuning (mostly for tests): how many runs at once, whether a booted Python worker is kept ready. */
export function configureSandbox(opts: Partial<typeof settings>): void {
  Object.assign(settings, opts);
  if (!settings.prewarmPython) dropSpare("python");
  if (!settings.pythonSnapshot) pySnapshot.image = null;
}

function dropSpare(language: Language): void {
  const s = spares.get(language);
  if (!s) return;
  spares.delete(language);
  clearTimeout(s.timer);
  void s.w.kill();
}

function makeSpare(language: Language): void {
  if (spares.has(language)) return;
  const w = new SandboxWorker(language);
  w.worker.unref(); // a spare never keeps the process alive
  const timer = setTimeout(() => dropSpare(language), SPARE_IDLE_MS);
  timer.unref?.();
  spares.set(language, { w, timer });
  w.worker.once("exit", () => {
    if (spares.get(language)?.w === w) {
      spares.delete(language);
      clearTimeout(timer);
    }
  });
  w.ready.then(
    (b) => noteBoot(language, b),
    (e: Error) => {
      bootFailure[language] = e.message;
      if (spares.get(language)?.w === w) {
        spares.delete(language);
        clearTimeout(timer);
      }
    },
  );
}

function takeWorker(language: Language): SandboxWorker {
  const s = spares.get(language);
  if (s && !s.w.gone) {
    spares.delete(language);
    clearTimeout(s.timer);
    s.w.worker.ref();
    return s.w;
  }
  return new SandboxWorker(language);
}

async function acquire(): Promise<boolean> {
  if (running < settings.maxConcurrent) {
    running++;
    return true;
  }
  if (queue.length >= settings.maxQueued) return false;
  await new Promise<void>((resolve) => queue.push(resolve));
  running++;
  return true;
}

function release(): void {
  running--;
  queue.shift()?.();
}

function staticEngine(language: Language): string {
  if (lastBoot[language]) return lastBoot[language]!.engine;
  if (language === "javascript") return `quickjs-emscripten ${packageVersion("quickjs-emscripten") ?? "?"} (wasm)`;
  return `pyodide ${packageVersion("pyodide") ?? "?"} (wasm)`;
}

function failure(language: Language, kind: SandboxErrorKind, message: string, exitCode: number = EXIT.sandboxFailure): SandboxResult {
  return {
    ok: false,
    exitCode,
    stdout: "",
    stderr: "",
    returnValue: null,
    durationMs: 0,
    truncated: false,
    error: { kind, message },
    engine: staticEngine(language),
  };
}

/** Execute a program in the sandbox. Never rejects: every failure is a result with ok: false. */
export async function runInSandbox(input: SandboxRequest): Promise<SandboxResult> {
  let req: Normalized;
  try {
    req = parseSandboxRequest(input);
  } catch (e) {
    const language: Language = (input as { language?: unknown })?.language === "python" ? "python" : "javascript";
    return failure(language, "unavailable", `invalid sandbox request: ${(e as Error).message}`);
  }
  if (req.language === "python") {
    const reason = pythonFilesReason();
    if (reason) return failure("python", "unavailable", `python is not available: ${reason}`);
  }
  if (!(await acquire())) return failure(req.language, "unavailable", "the sandbox is busy: too many queued executions");
  try {
    return await execute(req);
  } catch (e) {
    return failure(req.language, "crash", `sandbox failure: ${(e as Error)?.message ?? String(e)}`);
  } finally {
    release();
    if (req.language === "python" && settings.prewarmPython && !bootFailure.python) makeSpare("python");
  }
}

async function execute(req: Normalized): Promise<SandboxResult> {
  const w = takeWorker(req.language);
  let booted: Booted;
  try {
    booted = await w.ready;
  } catch (e) {
    void w.kill();
    const message = (e as Error).message;
    bootFailure[req.language] = message;
    const prefix = req.language === "python" ? "python is not available" : "javascript is not available";
    return failure(req.language, "unavailable", `${prefix}: ${message}`);
  }
  noteBoot(req.language, booted);

  return await new Promise<SandboxResult>((resolve) => {
    let stdout = "";
    let stderr = "";
    let truncated = false;
    let settled = false;
    const started = performance.now();
    const timers: NodeJS.Timeout[] = [];
    const done = (r: Omit<SandboxResult, "stdout" | "stderr" | "engine" | "truncated"> & { truncated?: boolean }) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      void w.kill();
      resolve({ ...r, stdout, stderr, truncated: truncated || !!r.truncated, engine: booted.engine });
    };
    const hardStop = (kind: "timeout" | "output_limit") => {
      if (kind === "timeout") {
        done({
          ok: false,
          exitCode: EXIT.timeout,
          returnValue: null,
          durationMs: performance.now() - started,
          error: { kind: "timeout", message: `timed out after ${req.timeoutMs} ms` },
        });
      } else {
        done({
          ok: false,
          exitCode: EXIT.outputLimit,
          returnValue: null,
          durationMs: performance.now() - started,
          truncated: true,
          error: { kind: "output_limit", message: `output exceeded ${req.maxOutputBytes} bytes` },
        });
      }
    };
    timers.push(
      setTimeout(() => w.stop(1), req.timeoutMs),
      setTimeout(() => hardStop("timeout"), req.timeoutMs + GRACE_MS),
    );
    w.run(
      req,
      (m) => {
        if (m.t === "out") {
          if (m.fd === 2) stderr += m.text;
          else stdout += m.text;
        } else if (m.t === "truncated") {
          truncated = true;
          timers.push(setTimeout(() => hardStop("output_limit"), GRACE_MS));
        } else if (m.t === "result") {
          let returnValue: unknown = null;
          let cut = false;
          if (typeof m.returnJson === "string") {
            if (m.returnJson.length > req.maxOutputBytes) {
              returnValue = m.returnJson.slice(0, req.maxOutputBytes);
              cut = true;
            } else {
              try {
                returnValue = JSON.parse(m.returnJson);
              } catch {
                returnValue = m.returnJson;
              }
            }
          }
          done({
            ok: m.exitCode === 0,
            exitCode: m.exitCode,
            returnValue,
            // a soft-stopped timeout is reported by the worker; the wall clock seen here is the honest figure
            durationMs: Math.round((m.kind === "timeout" ? Math.max(m.durationMs, performance.now() - started) : m.durationMs) * 100) / 100,
            truncated: m.truncated || cut,
            error: m.kind ? { kind: m.kind, message: m.message ?? m.kind } : null,
          });
        }
      },
      (why) => {
        // the worker died without a result
        const oom = (why.error as NodeJS.ErrnoException | undefined)?.code === "ERR_WORKER_OUT_OF_MEMORY";
        const durationMs = performance.now() - started;
        if (oom) {
          done({ ok: false, exitCode: EXIT.memory, returnValue: null, durationMs, error: { kind: "memory", message: `the sandbox worker ran out of memory (${why.error?.message})` } });
        } else {
          const detail = why.error?.message ?? `exit code ${why.code}${w.workerStderr ? `: ${w.workerStderr.trim().split("\n").slice(-2).join(" ")}` : ""}`;
          done({ ok: false, exitCode: EXIT.sandboxFailure, returnValue: null, durationMs, error: { kind: "crash", message: `the sandbox worker stopped unexpectedly (${detail})` } });
        }
      },
    );
  });
}

/** Which engines are usable here (python: a null engine and a reason when it cannot run). */
export async function sandboxInfo(): Promise<{ javascript: string | null; python: string | null; reason?: string }> {
  const js = packageVersion("quickjs-emscripten") && !bootFailure.javascript ? staticEngine("javascript") : null;
  const pyReason = pythonFilesReason() ?? (bootFailure.python ? `python is not available: ${bootFailure.python}` : null);
  const reasons = [
    js ? null : `javascript is not available: ${bootFailure.javascript ?? "quickjs-emscripten is not installed"}`,
    pyReason ? (pyReason.startsWith("python is not") ? pyReason : `python is not available: ${pyReason}`) : null,
  ].filter(Boolean);
  return { javascript: js, python: pyReason ? null : staticEngine("python"), ...(reasons.length ? { reason: reasons.join("; ") } : {}) };
}

/** Live worker threads, runs in flight and the last cold starts (for tests and diagnostics). */
export function sandboxStats(): {
  workers: number;
  spares: number;
  running: number;
  queued: number;
  bootMs: Record<Language, { full: number | null; snapshot: number | null }>;
  pythonSnapshot: "ready" | "pending" | "off" | string;
} {
  return {
    workers: live.size,
    spares: spares.size,
    running,
    queued: queue.length,
    bootMs: { javascript: { ...bootTimes.javascript }, python: { ...bootTimes.python } },
    pythonSnapshot: pySnapshot.image ? "ready" : pySnapshot.disabled ? `off: ${pySnapshot.disabled}` : pySnapshot.requested ? "pending" : "off",
  };
}

/** Terminate every worker (spares included) and drop the Python memory image; runs in flight end as crashes. */
export async function shutdownSandbox(): Promise<void> {
  for (const l of [...spares.keys()]) dropSpare(l);
  pySnapshot.image = null;
  pySnapshot.requested = false;
  await Promise.all([...live].map((w) => w.kill()));
}


/**
 * Diagnostics (tests): boot a worker in audit mode. Right after its lockdown it walks everything reachable from
 * the engine's JavaScript objects (pyodide's API object, its emscripten module, internal API, `js` globals) and
 * reports which host capabilities captured before the lockdown (globalThis, process, Function, require, functions
 * of fs / child_process / net / http / ...) can still be reached. QuickJS hands the guest no host object at all.
 */
export async function auditSandboxWorker(language: Language): Promise<{ visited: number; findings: string[] }> {
  const worker = new Worker(workerPath(), {
    workerData: { language, ctl: new SharedArrayBuffer(16), audit: true, snapshot: language === "python" ? pySnapshot.image : null },
    resourceLimits: RESOURCE_LIMITS[language],
    env: {},
    execArgv: [],
    stdout: true,
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("audit timed out")), BOOT_TIMEOUT_MS[language] * 2);
      worker.on("message", (m: { t: string; findings?: { visited: number; findings: string[] }; message?: string }) => {
        if (m.t === "audit" && m.findings) {
          clearTimeout(timer);
          resolve(m.findings);
        } else if (m.t === "boot_error") {
          clearTimeout(timer);
          reject(new Error(m.message));
        }
      });
      worker.on("error", (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
  } finally {
    await worker.terminate();
  }
}
