// Isolated code execution for the CODE processing mode (workflows/processing-modes/guide.md: ExecuteInSandbox → FormatSuccess | FormatError).
//
// No containers here: the code runs in a WebAssembly engine inside a child process of its own (node, started
// under Node's permission model), one process per run, so the worst a guest can do is end that process.
//   javascript — QuickJS (quickjs-emscripten, wasm); the guest sees no host object but a `console`.
//   python     — CPython (pyodide, wasm), loaded from node_modules/pyodide only; its file system is in memory.
// Limits: the engine's own (QuickJS memory/stack/interrupt, a wasm memory that cannot grow past memoryMb), the
// child's V8 heap (--max-old-space-size), a wall-clock timeout (the child stops itself, then SIGKILL from here),
// and an output cap on stdout+stderr counted on both sides. Everything read back from the child is bounded
// (line length, output bytes, message length). See lib/sandbox/child.mjs for the containment layers.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { spawn, type ChildProcess } from "node:child_process";
import { z } from "zod";
import type { EffectContext } from "../engine/effects";
import { sandboxPrincipal } from "./principal";

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

export const SANDBOX_ERROR_KINDS = ["runtime", "timeout", "memory", "output_limit", "unavailable", "crash"] as const;
export type SandboxErrorKind = (typeof SANDBOX_ERROR_KINDS)[number];

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

// ---------------------------------------------------------------- child processes

const MiB = 1024 * 1024;
const BOOT_TIMEOUT_MS: Record<Language, number> = { javascript: 15_000, python: 90_000 };
/** after the deadline (or the output cap) the child gets this long to report before it is killed */
const GRACE_MS = 400;
/** the child's own V8 heap (the guest's memory is the engine's wasm memory, capped separately) */
const HEAP_MB: Record<Language, number> = { javascript: 64, python: 128 };
const SEMI_SPACE_MB = 8;
/** V8's stack for the child's main thread, in KiB: below the usual 8 MiB ulimit (wasm frames of CPython live here) */
const STACK_KB = 3800;
/** error messages from the child are cut at twice this (the engines cut at this, with a note of what was cut) */
const MESSAGE_CAP = 4096;
/** one protocol line from the child; output text is at most 1 MiB of UTF-8, JSON-escaped at most 6× */
const LINE_CAP = 8 * MiB;
/** CPython's memory image, sent once by the first Python child before any guest code exists */
const SNAPSHOT_CAP = 256 * MiB;
const TAIL_CHARS = 4000;
const SPARE_IDLE_MS = 10 * 60_000;

function resolveChildPath(): string {
  const candidates: string[] = [];
  try {
    // the source location under vitest/tsx; in a bundle this may point elsewhere (or not be a file: URL)
    candidates.push(fileURLToPath(new URL("./child.mjs", import.meta.url)));
  } catch {
    /* not a file URL */
  }
  // `next start` (and every script) runs from the repository root
  candidates.push(path.join(process.cwd(), "lib", "sandbox", "child.mjs"));
  return candidates.find((p) => fs.existsSync(p)) ?? candidates[candidates.length - 1];
}

let childPathCache: string | null = null;
function childPath(): string {
  return (childPathCache ??= resolveChildPath());
}

/** A package's directory as resolved from `from` (through its main entry: not every package exports package.json). */
function packageDir(name: string, from: string = childPath()): string {
  const req = createRequire(from);
  try {
    return path.dirname(req.resolve(`${name}/package.json`));
  } catch {
    const entry = req.resolve(name);
    const marker = `${path.sep}node_modules${path.sep}${name.split("/").join(path.sep)}${path.sep}`;
    const i = entry.lastIndexOf(marker);
    if (i === -1) throw new Error(`cannot find the directory of ${name}`);
    return entry.slice(0, i + marker.length - 1);
  }
}

function packageVersion(name: string): string | null {
  try {
    const file = path.join(packageDir(name), "package.json");
    return (JSON.parse(fs.readFileSync(/*turbopackIgnore: true*/ file, "utf8")) as { version?: string }).version ?? null;
  } catch {
    return null;
  }
}

function pythonFilesReason(): string | null {
  try {
    const dir = packageDir("pyodide");
    for (const f of ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"]) {
      if (!fs.existsSync(/*turbopackIgnore: true*/ path.join(/*turbopackIgnore: true*/ dir, f))) return `pyodide is installed without ${f}`;
    }
    return null;
  } catch {
    return "the pyodide package is not installed";
  }
}

/** The only paths a child may read: its own script and its engine's packages (each a directory, read recursively). */
export function sandboxReadPaths(language: Language): string[] {
  const script = childPath();
  if (language === "python") return [script, `${packageDir("pyodide")}${path.sep}`];
  const qjs = packageDir("quickjs-emscripten");
  const fromQjs = path.join(qjs, "package.json");
  return [
    script,
    `${qjs}${path.sep}`,
    `${packageDir("quickjs-emscripten-core", fromQjs)}${path.sep}`,
    `${packageDir("@jitl/quickjs-wasmfile-release-sync", fromQjs)}${path.sep}`,
    `${packageDir("@jitl/quickjs-ffi-types", path.join(packageDir("quickjs-emscripten-core", fromQjs), "package.json"))}${path.sep}`,
  ];
}

const permissionFlag = process.allowedNodeEnvironmentFlags.has("--permission") ? "--permission" : "--experimental-permission";

/**
 * The child's command line. Node's permission model: with the flag on, everything not granted is refused —
 * fs reads outside sandboxReadPaths, every fs write, child processes, worker threads, addons, WASI.
 * (Node 20's permission model does not cover the network: see SECURITY.md.)
 */
export function sandboxNodeArgs(language: Language): string[] {
  const flags = process.allowedNodeEnvironmentFlags;
  return [
    permissionFlag,
    ...sandboxReadPaths(language).map((p) => `--allow-fs-read=${p}`),
    "--no-addons",
    ...(flags.has("--no-experimental-fetch") ? ["--no-experimental-fetch"] : []),
    ...(flags.has("--disable-warning") ? ["--disable-warning=ExperimentalWarning"] : []),
    `--max-old-space-size=${HEAP_MB[language]}`,
    `--max-semi-space-size=${SEMI_SPACE_MB}`,
    `--stack-size=${STACK_KB}`,
    // wasm code stays with V8's baseline compiler (Liftoff): no background TurboFan tier-up. A child lives for
    // one run, and pyodide's tier-up (its interpreter loop among the functions, compiled again on V8's worker
    // threads) cost about 1 CPU-second per Python child, QuickJS's about 0.15 s; the optimised code rarely
    // arrives in time to pay back (a running interpreter loop keeps its Liftoff frame: wasm has no on-stack
    // replacement), so even loop-heavy guests measured no slower. A V8 flag (not in allowedNodeEnvironmentFlags).
    "--liftoff-only",
  ];
}

type ChildMsg =
  | { t: "ready"; engine: string; bootMs: number; bootKind: "full" | "snapshot" }
  | { t: "snapshot"; bytes: number }
  | { t: "snapshot_failed"; message: string }
  | { t: "boot_error"; message: string }
  | { t: "audit"; findings: { visited: number; findings: string[] } }
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
      /** the error message was cut (to MESSAGE_CAP characters) */
      messageCut?: boolean;
    };

interface Booted {
  engine: string;
  bootMs: number;
  bootKind: "full" | "snapshot";
}

interface Gone {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** the parent killed it (timeout, output cap, shutdown, a protocol violation) */
  killed: string | null;
}

/** CPython's memory image right after boot (made once by the first Python child; ~30 MB, written to each child's stdin). */
const pySnapshot: { image: Buffer | null; requested: boolean; disabled: string | null } = {
  image: null,
  requested: false,
  disabled: null,
};

function capText(s: string, cap: number): { text: string; cut: boolean } {
  return s.length > cap ? { text: `${s.slice(0, cap)}… (${s.length - cap} more characters)`, cut: true } : { text: s, cut: false };
}

/** One child process, booted (engine loaded, process locked down) and waiting for its single run. */
class SandboxChild {
  readonly proc: ChildProcess;
  readonly ready: Promise<Booted>;
  private listener: ((m: ChildMsg) => void) | null = null;
  private onGone: ((why: Gone) => void) | null = null;
  private auditSink: ((f: { visited: number; findings: string[] }) => void) | null = null;
  gone: Gone | null = null;
  private killedFor: string | null = null;
  stderrTail = "";
  /** bytes of stdout read since the run was sent */
  private received = 0;
  private receiveCap = Infinity;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private binary: { need: number; chunks: Buffer[]; got: number } | null = null;
  private bootTimer: NodeJS.Timeout | null = null;
  private readonly makesSnapshot: boolean;

  constructor(
    readonly language: Language,
    opts: { audit?: boolean; onAudit?: (f: { visited: number; findings: string[] }) => void } = {},
  ) {
    let makeSnapshot = false;
    let snapshot: Buffer | null = null;
    if (language === "python" && settings.pythonSnapshot && !pySnapshot.disabled) {
      if (pySnapshot.image) snapshot = pySnapshot.image;
      else if (!pySnapshot.requested && !opts.audit) makeSnapshot = pySnapshot.requested = true;
    }
    this.makesSnapshot = makeSnapshot;
    this.auditSink = opts.onAudit ?? null;
    const config = { language, snapshotBytes: snapshot?.length ?? 0, makeSnapshot, audit: !!opts.audit, lockdown: !settings.unsafeSkipLockdownForTests };
    this.proc = spawn(process.execPath, [...sandboxNodeArgs(language), childPath(), JSON.stringify(config)], {
      env: {} as NodeJS.ProcessEnv, // nothing of the server's environment (secrets, DATABASE_URL) reaches the child
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
    });
    live.add(this);
    this.proc.stdin!.on("error", () => {}); // EPIPE when the child is already gone
    if (snapshot) this.proc.stdin!.write(snapshot);
    this.proc.stderr!.on("data", (b: Buffer) => {
      this.stderrTail = (this.stderrTail + b.toString("utf8")).slice(-TAIL_CHARS);
    });
    this.ready = new Promise<Booted>((resolve, reject) => {
      this.bootTimer = setTimeout(() => {
        reject(new Error(`the ${language} engine did not start within ${BOOT_TIMEOUT_MS[language]} ms`));
        this.kill("boot timeout");
      }, BOOT_TIMEOUT_MS[language]);
      this.bootTimer.unref?.();
      const onMessage = (m: ChildMsg) => {
        if (m.t === "snapshot_failed") {
          pySnapshot.image = null;
          pySnapshot.disabled = String(m.message).slice(0, 300);
        } else if (m.t === "ready") {
          clearTimeout(this.bootTimer!);
          resolve({ engine: String(m.engine), bootMs: Number(m.bootMs), bootKind: m.bootKind === "snapshot" ? "snapshot" : "full" });
        } else if (m.t === "boot_error") {
          clearTimeout(this.bootTimer!);
          reject(new Error(String(m.message).slice(0, 2000)));
          this.kill("boot error");
        } else if (m.t === "audit") {
          this.auditSink?.(m.findings);
        } else this.listener?.(m);
      };
      this.proc.stdout!.on("data", (chunk: Buffer) => this.read(chunk, onMessage));
      this.proc.on("error", (error) => {
        clearTimeout(this.bootTimer!);
        reject(error);
      });
      this.proc.on("exit", (code, signal) => {
        if (this.gone) return;
        this.gone = { code, signal, killed: this.killedFor };
        live.delete(this);
        if (this.makesSnapshot && !pySnapshot.image) pySnapshot.requested = false;
        clearTimeout(this.bootTimer!);
        reject(new Error(`the sandbox process exited (${signal ?? `code ${code}`}) ${this.stderrTail.trim().split("\n").slice(-2).join(" ")}`.trim()));
        this.onGone?.(this.gone);
      });
    });
    this.ready.catch(() => {});
  }

  /** Parse stdout: JSON lines (each at most LINE_CAP), or the raw bytes of the memory image after its header. */
  private read(chunk: Buffer, onMessage: (m: ChildMsg) => void): void {
    if (this.killedFor) return; // being killed: nothing more is kept
    this.received += chunk.length;
    if (this.received > this.receiveCap) {
      this.kill(`the sandbox process sent more than ${this.receiveCap} bytes`);
      return;
    }
    while (chunk.length) {
      if (this.binary) {
        const take = chunk.subarray(0, this.binary.need - this.binary.got);
        this.binary.chunks.push(Buffer.from(take));
        this.binary.got += take.length;
        chunk = chunk.subarray(take.length);
        if (this.binary.got === this.binary.need) {
          pySnapshot.image = Buffer.concat(this.binary.chunks);
          this.binary = null;
        }
        continue;
      }
      const nl = chunk.indexOf(10);
      if (nl === -1) {
        this.pending.push(chunk);
        this.pendingBytes += chunk.length;
        if (this.pendingBytes > LINE_CAP) this.kill(`the sandbox process sent a line longer than ${LINE_CAP} bytes`);
        return;
      }
      const line = Buffer.concat([...this.pending, chunk.subarray(0, nl)]);
      this.pending = [];
      this.pendingBytes = 0;
      chunk = chunk.subarray(nl + 1);
      if (line.length > LINE_CAP) {
        this.kill(`the sandbox process sent a line longer than ${LINE_CAP} bytes`);
        return;
      }
      let m: ChildMsg;
      try {
        m = JSON.parse(line.toString("utf8")) as ChildMsg;
      } catch {
        continue; // not protocol (the child silences console, but a stray line must not break the run)
      }
      if (!m || typeof m !== "object") continue;
      if (m.t === "snapshot") {
        // only the child asked for it, only before the run (no guest code has existed in it), bounded
        const bytes = Number(m.bytes);
        if (!this.makesSnapshot || this.listener || !(bytes > 0 && bytes <= SNAPSHOT_CAP)) {
          this.kill("unexpected memory image from the sandbox process");
          return;
        }
        this.binary = { need: bytes, chunks: [], got: 0 };
        continue;
      }
      onMessage(m);
    }
  }

  /** Start the child's single run; its messages go to sink, an exit without a result to onGone. */
  run(req: Normalized, sink: (m: ChildMsg) => void, onGone: (why: Gone) => void): void {
    this.listener = sink;
    this.onGone = onGone;
    if (this.gone) {
      onGone(this.gone);
      return;
    }
    // everything a well-behaved child can send for one run, with room for JSON escapes; more ends the process
    this.received = 0;
    this.receiveCap = 8 * req.maxOutputBytes + 8 * MiB;
    this.proc.stdin!.end(
      JSON.stringify({ t: "run", code: req.code, timeoutMs: req.timeoutMs, memoryMb: req.memoryMb, maxOutputBytes: req.maxOutputBytes }) + "\n",
    );
  }

  kill(why: string): void {
    live.delete(this);
    if (this.gone) return;
    this.killedFor ??= why;
    try {
      this.proc.kill("SIGKILL");
    } catch {
      /* already gone */
    }
  }

  /** A spare must not keep the host process alive. */
  setRef(on: boolean): void {
    for (const h of [this.proc, this.proc.stdin, this.proc.stdout, this.proc.stderr] as Array<{ ref?: () => void; unref?: () => void } | null>) {
      if (on) h?.ref?.();
      else h?.unref?.();
    }
  }
}

const live = new Set<SandboxChild>();
const spares = new Map<Language, { w: SandboxChild; timer: NodeJS.Timeout }>();
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
/**
 * Executions waiting for a slot, per principal (who started their run; "" outside any run), served
 * in turn: each principal's oldest, one principal after the other. `queued` counts them all.
 */
const waiting = new Map<string, Array<() => void>>();
let queued = 0;
const settings = {
  maxConcurrent: Math.max(1, Math.min(4, os.availableParallelism?.() ?? os.cpus().length)),
  maxQueued: 64,
  /** executions one principal (user, token, client address) may have waiting */
  maxQueuedPerPrincipal: 8,
  prewarmPython: true,
  prewarmJavascript: true,
  pythonSnapshot: true,
  /** tests only: start children without lockdown() so that the permission model is tested on its own */
  unsafeSkipLockdownForTests: false,
};

/** Tuning (mostly for tests): how many runs at once, how many may wait (in all, per principal), whether a booted child is kept ready per language. */
export function configureSandbox(opts: Partial<typeof settings>): void {
  if (opts.maxQueuedPerPrincipal !== undefined && !(Number.isInteger(opts.maxQueuedPerPrincipal) && opts.maxQueuedPerPrincipal >= 1)) throw new Error(`maxQueuedPerPrincipal must be a whole number from 1; got ${opts.maxQueuedPerPrincipal}`);
  Object.assign(settings, opts);
  if (!settings.prewarmPython) dropSpare("python");
  if (!settings.prewarmJavascript) dropSpare("javascript");
  if (!settings.pythonSnapshot) pySnapshot.image = null;
}

function prewarm(language: Language): boolean {
  return language === "python" ? settings.prewarmPython : settings.prewarmJavascript;
}

function dropSpare(language: Language): void {
  const s = spares.get(language);
  if (!s) return;
  spares.delete(language);
  clearTimeout(s.timer);
  s.w.kill("spare dropped");
}

function makeSpare(language: Language): void {
  if (spares.has(language)) return;
  const w = new SandboxChild(language);
  w.setRef(false); // a spare never keeps the process alive
  const timer = setTimeout(() => dropSpare(language), SPARE_IDLE_MS);
  timer.unref?.();
  spares.set(language, { w, timer });
  w.proc.once("exit", () => {
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

function takeChild(language: Language): SandboxChild {
  const s = spares.get(language);
  if (s && !s.w.gone) {
    spares.delete(language);
    clearTimeout(s.timer);
    s.w.setRef(true);
    return s.w;
  }
  return new SandboxChild(language);
}

/** A slot now, or after waiting in line; "full" / "principal" when the queue, or this principal's share of it, is full. */
async function acquire(who: string | null): Promise<true | "full" | "principal"> {
  if (running < settings.maxConcurrent) {
    running++;
    return true;
  }
  if (queued >= settings.maxQueued) return "full";
  const key = who ?? "";
  const line = waiting.get(key) ?? [];
  if (who !== null && line.length >= settings.maxQueuedPerPrincipal) return "principal";
  queued++;
  waiting.set(key, line);
  await new Promise<void>((resolve) => line.push(resolve));
  running++;
  return true;
}

function release(): void {
  running--;
  // the principal first in line gives its oldest execution the slot, and goes to the back of the line
  for (const [key, line] of waiting) {
    const next = line.shift();
    waiting.delete(key);
    if (line.length) waiting.set(key, line);
    if (next) {
      queued--;
      next();
      return;
    }
  }
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

/**
 * Execute a program in the sandbox. Never rejects: every failure is a result with ok: false.
 * `principal`: whom it counts against in the queue; else `ctx`, the context of the effect calling
 * this: whoever started its run (lib/sandbox/principal.ts); none without either (outside a run).
 */
export async function runInSandbox(input: SandboxRequest, opts: { principal?: string; ctx?: EffectContext } = {}): Promise<SandboxResult> {
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
  const slot = await acquire(opts.principal ?? (await sandboxPrincipal(opts.ctx)));
  if (slot === "full") return failure(req.language, "unavailable", "the sandbox is busy: too many queued executions");
  if (slot === "principal") return failure(req.language, "unavailable", `the sandbox is busy: whoever started this run has ${settings.maxQueuedPerPrincipal} executions waiting already (the most one user, token or client address may have queued)`);
  try {
    return await execute(req);
  } catch (e) {
    return failure(req.language, "crash", `sandbox failure: ${(e as Error)?.message ?? String(e)}`);
  } finally {
    release();
    if (prewarm(req.language) && !bootFailure[req.language]) makeSpare(req.language);
  }
}

/** The child died without a result and the parent did not kill it: V8's heap limit (abort) or the kernel. */
function diedOfMemory(why: Gone, stderrTail: string): boolean {
  if (why.killed) return false;
  if (/heap out of memory|Reached heap limit|Allocation failed|out of memory/i.test(stderrTail)) return true;
  return why.signal === "SIGABRT" || why.signal === "SIGKILL" || why.signal === "SIGTRAP" || why.code === 134 || why.code === 137;
}

async function execute(req: Normalized): Promise<SandboxResult> {
  const w = takeChild(req.language);
  let booted: Booted;
  try {
    booted = await w.ready;
  } catch (e) {
    w.kill("boot failed");
    const message = (e as Error).message;
    bootFailure[req.language] = message;
    const prefix = req.language === "python" ? "python is not available" : "javascript is not available";
    return failure(req.language, "unavailable", `${prefix}: ${message}`);
  }
  noteBoot(req.language, booted);

  return await new Promise<SandboxResult>((resolve) => {
    let stdout = "";
    let stderr = "";
    let outBytes = 0;
    let truncated = false;
    let settled = false;
    const started = performance.now();
    const timers: NodeJS.Timeout[] = [];
    const done = (r: Omit<SandboxResult, "stdout" | "stderr" | "engine" | "truncated"> & { truncated?: boolean }) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      const result = { ...r, stdout, stderr, truncated: truncated || !!r.truncated, engine: booted.engine };
      // the run is over when its process is: no sandbox process outlives runInSandbox
      const finished = () => resolve(result);
      if (w.gone) return finished();
      const cap = setTimeout(finished, 2000);
      w.proc.once("close", () => {
        clearTimeout(cap);
        finished();
      });
      w.kill("run finished");
    };
    const hardStop = (kind: "timeout" | "output_limit") => {
      w.kill(kind);
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
    const cutOutput = () => {
      if (truncated) return;
      truncated = true;
      timers.push(setTimeout(() => hardStop("output_limit"), GRACE_MS));
    };
    timers.push(setTimeout(() => hardStop("timeout"), req.timeoutMs + GRACE_MS));
    w.run(
      req,
      (m) => {
        if (m.t === "out") {
          // the parent counts too: never more than maxOutputBytes, whatever the child sends
          if (truncated || typeof m.text !== "string") return;
          let text = m.text;
          const room = req.maxOutputBytes - outBytes;
          let bytes = Buffer.byteLength(text, "utf8");
          if (bytes > room) {
            text = Buffer.from(text, "utf8").subarray(0, room).toString("utf8").replace(/\uFFFD+$/, "");
            bytes = Buffer.byteLength(text, "utf8");
            cutOutput();
          }
          outBytes += bytes;
          if (m.fd === 2) stderr += text;
          else stdout += text;
        } else if (m.t === "truncated") {
          cutOutput();
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
          const kind = m.kind ?? null;
          const message = capText(String(m.message ?? kind ?? ""), 2 * MESSAGE_CAP + 64);
          const messageCut = message.cut || m.messageCut === true;
          const exitCode = Number.isInteger(m.exitCode) ? m.exitCode : EXIT.sandboxFailure;
          done({
            ok: exitCode === 0 && !kind,
            exitCode,
            returnValue,
            // a soft-stopped timeout is reported by the child; the wall clock seen here is the honest figure
            durationMs: Math.round((kind === "timeout" ? Math.max(Number(m.durationMs) || 0, performance.now() - started) : Number(m.durationMs) || 0) * 100) / 100,
            truncated: !!m.truncated || cut || messageCut,
            error: kind ? { kind, message: message.text } : null,
          });
        }
      },
      (why) => {
        // the child died without a result
        const durationMs = performance.now() - started;
        if (why.killed && why.killed.startsWith("the sandbox process sent")) {
          done({ ok: false, exitCode: EXIT.sandboxFailure, returnValue: null, durationMs, truncated: true, error: { kind: "crash", message: why.killed } });
        } else if (diedOfMemory(why, w.stderrTail)) {
          done({
            ok: false,
            exitCode: EXIT.memory,
            returnValue: null,
            durationMs,
            error: {
              kind: "memory",
              message: `guest code ran out of memory (limit ${req.memoryMb} MB): the sandbox process went past its own ${HEAP_MB[req.language]} MB heap and was ended (${why.signal ?? `exit code ${why.code}`})`,
            },
          });
        } else {
          const detail = `${why.signal ?? `exit code ${why.code}`}${w.stderrTail ? `: ${w.stderrTail.trim().split("\n").slice(-2).join(" ").slice(0, 500)}` : ""}`;
          done({ ok: false, exitCode: EXIT.sandboxFailure, returnValue: null, durationMs, error: { kind: "crash", message: `the sandbox process stopped unexpectedly (${detail})` } });
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

/** Live sandbox processes (`workers`, the name kept from the thread days), runs in flight, the last cold starts. */
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
    queued,
    bootMs: { javascript: { ...bootTimes.javascript }, python: { ...bootTimes.python } },
    pythonSnapshot: pySnapshot.image ? "ready" : pySnapshot.disabled ? `off: ${pySnapshot.disabled}` : pySnapshot.requested ? "pending" : "off",
  };
}

/** Kill every child (spares included) and drop the Python memory image; runs in flight end as crashes. */
export async function shutdownSandbox(): Promise<void> {
  for (const l of [...spares.keys()]) dropSpare(l);
  pySnapshot.image = null;
  pySnapshot.requested = false;
  const all = [...live];
  await Promise.all(
    all.map(
      (w) =>
        new Promise<void>((resolve) => {
          if (w.gone || w.proc.exitCode !== null || w.proc.signalCode !== null) return resolve();
          w.proc.once("exit", () => resolve());
          w.kill("shutdown");
        }),
    ),
  );
}

/**
 * Diagnostics (tests): boot a child in audit mode. Right after its lockdown it walks everything reachable from
 * the engine's JavaScript objects (pyodide's API object, its emscripten module, internal API, `js` globals) and
 * reports which host capabilities captured before the lockdown (globalThis, process, Function, require, functions
 * of fs / child_process / net / http / ...) can still be reached. QuickJS hands the guest no host object at all.
 */
export async function auditSandboxChild(language: Language): Promise<{ visited: number; findings: string[] }> {
  let w: SandboxChild | null = null;
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("audit timed out")), BOOT_TIMEOUT_MS[language] * 2);
      w = new SandboxChild(language, {
        audit: true,
        onAudit: (f) => {
          clearTimeout(timer);
          resolve(f);
        },
      });
      w.ready.catch((e: Error) => {
        clearTimeout(timer);
        reject(e);
      });
    });
  } finally {
    (w as SandboxChild | null)?.kill("audit done");
  }
}

/** The earlier name (the sandbox ran in worker threads). */
export const auditSandboxWorker = auditSandboxChild;

/** SWITCHYARD_SANDBOX_QUEUE_PER_PRINCIPAL: executions one principal may have waiting (1 … 64, default 8). */
export function queuePerPrincipalFromEnv(env: Record<string, string | undefined>): number {
  const v = env.SWITCHYARD_SANDBOX_QUEUE_PER_PRINCIPAL?.trim();
  if (!v) return 8;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new Error(`SWITCHYARD_SANDBOX_QUEUE_PER_PRINCIPAL must be a whole number from 1 to 64; got "${v}"`);
  return n;
}
