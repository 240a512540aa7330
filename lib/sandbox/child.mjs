// Sandbox child: one code execution in a WebAssembly engine, inside its own Node.js process.
//
// Plain ESM (not TypeScript) so that it runs unchanged under vitest/tsx and behind `next start`; the parent
// (lib/sandbox/index.ts) starts it with `node --experimental-permission` (fs reads of the engine's files only; no
// fs writes, child processes, workers or addons), a small V8 heap and an empty environment: the worst a guest can
// do to the host is end this process. argv[2] is a JSON config { language, snapshotBytes, makeSnapshot, audit, lockdown }.
// Protocol:
//   parent → child, stdin: python with snapshotBytes > 0: that many bytes of CPython's memory image first;
//                          then one line of JSON { t: "run", code, timeoutMs, memoryMb, maxOutputBytes }
//   child → parent, stdout: one JSON object a line —
//                          { t: "ready", engine, bootMs, bootKind } | { t: "boot_error", message } | { t: "audit", findings }
//                          python with makeSnapshot: { t: "snapshot", bytes } followed by that many raw bytes
//                          (before any guest code exists), or { t: "snapshot_failed", message }
//                          { t: "out", fd: 1 | 2, text } (already capped) | { t: "truncated" }
//                          { t: "result", exitCode, kind, message, returnJson, durationMs, truncated }
// The parent reads stdout with limits of its own (line length, output budget) and kills the process on a timeout.
// The child stops itself first: QuickJS's interrupt handler and CPython's interrupt buffer (read through a getter)
// both watch the deadline and the output budget.
//
// Containment, in layers:
//  1. the engine: QuickJS gets no host object but a `console` whose only capability is to append to the
//     capped output; CPython lives in pyodide's in-memory file system, with `js`/`pyodide_js`/ctypes & co.
//     made unimportable and os.system/subprocess refused (a guest can undo this part: the layers below hold);
//  2. memory: the engine's wasm memory cannot grow past the limit (QuickJS: a bounded WebAssembly.Memory
//     plus runtime.setMemoryLimit; CPython: WebAssembly.Memory.prototype.grow refuses → MemoryError);
//     this process's own JS heap is bounded by --max-old-space-size (set by the parent);
//  3. lockdown of this process once the engine is loaded (see lockdown()): no code generation from strings
//     (eval / Function constructors), no module loading, the dangerous node builtins (fs, child_process,
//     net, http, worker_threads, ...) replaced by throwing stubs, no fetch/WebSocket, no process.binding,
//     so that even a guest that reached a JavaScript object of pyodide's finds nothing to use;
//  4. Node's permission model (flags set by the parent): even with the JavaScript realm in hand, no file can be
//     written or read outside the engine's files, no process or thread started, no addon loaded;
//  5. the parent: empty env, wall-clock timeout (SIGKILL), output cap on what it reads, one process per run.
import fs from "node:fs";
import nodeModule, { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const syncBuiltinESMExports = nodeModule.syncBuiltinESMExports;
const opts = JSON.parse(process.argv[2] ?? "{}");
const { language } = opts;
const writeSync = fs.writeSync;
const exitNow = process.exit.bind(process);
const readSync = fs.readSync;
// [0] CPython's interrupt flag (2 = SIGINT), [1] why the run is being stopped (1 timeout, 2 output limit)
const ctl = new Int32Array(2);
let deadline = Infinity;
const MiB = 1024 * 1024;
const STOP_TIMEOUT = 1;
const STOP_OUTPUT = 2;
/** error messages (and the like) sent to the parent are cut here; the parent cuts again */
const MESSAGE_CAP = 4096;

// console output of the engines' own code must not mix with the protocol on stdout
for (const k of ["log", "info", "debug", "warn", "error", "trace", "dir"]) console[k] = () => {};

/** One protocol line on stdout, written synchronously (the event loop may be blocked by the engine). */
function sendBytes(buf) {
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(1, buf, off, buf.length - off);
    } catch (e) {
      if (e?.code !== "EAGAIN") throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  }
}
function send(msg) {
  sendBytes(Buffer.from(JSON.stringify(msg) + "\n", "utf8"));
}

function capMessage(text) {
  const s = String(text ?? "");
  return s.length > MESSAGE_CAP ? `${s.slice(0, MESSAGE_CAP)}… (${s.length - MESSAGE_CAP} more characters)` : s;
}

// ---------- memory: a ceiling on every wasm memory of this process ----------
let memoryCapBytes = Infinity;
let memoryRefused = false;
const realGrow = WebAssembly.Memory.prototype.grow;
Object.defineProperty(WebAssembly.Memory.prototype, "grow", {
  value: function grow(delta) {
    const next = this.buffer.byteLength + Number(delta) * 65536;
    if (next > memoryCapBytes) {
      memoryRefused = true;
      throw new RangeError("sandbox memory limit reached");
    }
    return realGrow.call(this, delta);
  },
  writable: false,
  configurable: false,
});

// ---------- output: stdout + stderr share one byte budget ----------
let maxOutputBytes = 65536;
let outputBytes = 0;
let truncated = false;
const encoder = new TextEncoder();

function requestStop(reason) {
  if (ctl[1] !== 0) return;
  ctl[1] = reason;
  ctl[0] = 2; // one KeyboardInterrupt for CPython (pyodide clears it when it has read it)
}

/** Append UTF-8 bytes to fd 1/2; returns false once the budget is spent (the run is then being stopped). */
const decoders = { 1: new TextDecoder("utf-8"), 2: new TextDecoder("utf-8") };
function emitBytes(fd, bytes) {
  if (truncated) return false;
  const room = maxOutputBytes - outputBytes;
  if (bytes.length <= room) {
    outputBytes += bytes.length;
    const text = decoders[fd].decode(bytes, { stream: true });
    if (text) send({ t: "out", fd, text });
    return true;
  }
  outputBytes = maxOutputBytes;
  truncated = true;
  const text = decoders[fd].decode(bytes.subarray(0, Math.max(0, room))).replace(/\uFFFD+$/, "");
  if (text) send({ t: "out", fd, text });
  send({ t: "truncated" });
  requestStop(STOP_OUTPUT);
  return false;
}
/** Text from the guest: only the part that can still fit is encoded (a 30 MB string costs no 30 MB copy). */
function emitText(fd, text) {
  const room = maxOutputBytes - outputBytes;
  // every UTF-16 unit takes at least one UTF-8 byte, so room + 1 units are enough to overflow the budget
  const s = text.length > room + 1 ? text.slice(0, room + 1) : text;
  return emitBytes(fd, encoder.encode(s));
}

function stopReason() {
  if (ctl[1] === 0 && Date.now() > deadline) requestStop(STOP_TIMEOUT);
  return ctl[1];
}

// ---------- lockdown of this process ----------
function deny(what) {
  return function denied() {
    throw new Error(`${what} is not available in the sandbox`);
  };
}

function lockdown() {
  // 1. no code generation from strings: eval and every Function constructor (reachable from any function
  //    object as fn.constructor) throw. Function itself stays a (proxied) constructor so `instanceof` works.
  //    The proxies also answer getPrototypeOf (AsyncFunction's prototype is Function itself).
  const RealFunction = Function;
  let FunctionProxy = null;
  const noCodegen = (Real, name) =>
    new Proxy(Real, {
      apply() {
        throw new EvalError(`${name} is not available in the sandbox`);
      },
      construct() {
        throw new EvalError(`${name} is not available in the sandbox`);
      },
      getPrototypeOf(target) {
        const p = Reflect.getPrototypeOf(target);
        return p === RealFunction ? FunctionProxy : p;
      },
    });
  FunctionProxy = noCodegen(Function, "Function");
  const ctors = [
    [Function, FunctionProxy],
    [Object.getPrototypeOf(async function () {}).constructor, "AsyncFunction"],
    [Object.getPrototypeOf(function* () {}).constructor, "GeneratorFunction"],
    [Object.getPrototypeOf(async function* () {}).constructor, "AsyncGeneratorFunction"],
  ];
  for (const [Ctor, proxyOrName] of ctors) {
    const value = typeof proxyOrName === "string" ? noCodegen(Ctor, proxyOrName) : proxyOrName;
    Object.defineProperty(Ctor.prototype, "constructor", { value, writable: false, configurable: false });
  }
  Object.defineProperty(globalThis, "Function", { value: FunctionProxy, writable: false, configurable: false });
  Object.defineProperty(globalThis, "eval", { value: deny("eval"), writable: false, configurable: false });
  // stack-trace hooks hand out CallSite objects (getThis/getFunction): keep them out of reach
  try {
    Object.defineProperty(Error, "prepareStackTrace", { value: undefined, writable: false, configurable: false });
  } catch {
    /* already locked */
  }

  // load the builtins to seal (below) while loading still works
  const builtins = [
    "fs", "fs/promises", "child_process", "net", "tls", "dgram", "dns", "dns/promises", "http", "https", "http2",
    "worker_threads", "cluster", "vm", "inspector", "v8", "wasi", "os", "repl", "readline", "trace_events", "module",
  ];
  const loaded = [];
  for (const name of builtins) {
    try {
      loaded.push([name, require(`node:${name}`)]);
    } catch {
      /* not built in */
    }
  }
  let ws = null;
  try {
    ws = require("ws"); // pyodide's websocket transport for emscripten sockets
  } catch {
    /* not installed */
  }

  // 2. no module loading (createRequire'd functions, including emscripten's, go through Module.prototype.require)
  nodeModule.prototype.require = deny("require");
  for (const k of ["_load", "_resolveFilename", "createRequire", "register", "runMain", "_initPaths", "_preloadModules", "wrap"]) {
    try {
      nodeModule[k] = deny(`module.${k}`);
    } catch {
      /* not writable */
    }
  }

  // 3. the dangerous builtins (already loaded ones, e.g. pyodide's captured fs/child_process/net/ws) become
  //    throwing stubs: this process runs nothing else.
  const seal = (mod, name, depth = 0) => {
    if (!mod || (typeof mod !== "object" && typeof mod !== "function") || depth > 1) return;
    for (const key of Object.getOwnPropertyNames(mod)) {
      const d = Object.getOwnPropertyDescriptor(mod, key);
      if (!d || !("value" in d)) continue;
      if (typeof d.value === "function" && key !== "constructor") {
        try {
          Object.defineProperty(mod, key, { value: deny(`${name}.${key}`), writable: false, configurable: false });
        } catch {
          /* frozen */
        }
      } else if (key === "promises" && d.value && typeof d.value === "object") {
        seal(d.value, `${name}.${key}`, depth + 1);
      }
    }
  };
  for (const [name, mod] of loaded) {
    seal(mod, name);
  }
  if (ws) seal(ws, "ws");
  syncBuiltinESMExports();

  // 4. process: no bindings, no builtin lookup, no signals, no reports, empty env
  for (const key of [
    "binding", "_linkedBinding", "dlopen", "getBuiltinModule", "kill", "_kill", "chdir", "abort", "umask", "loadEnvFile",
    "setuid", "setgid", "seteuid", "setegid", "setgroups", "initgroups", "_debugProcess", "_debugEnd", "_startProfilerIdleNotifier",
    "_stopProfilerIdleNotifier", "openStdin", "_getActiveHandles", "_getActiveRequests", "setSourceMapsEnabled", "_rawDebug",
  ]) {
    try {
      Object.defineProperty(process, key, { value: deny(`process.${key}`), writable: false, configurable: false });
    } catch {
      /* absent or locked */
    }
  }
  for (const key of ["report", "mainModule", "permission"]) {
    try {
      Object.defineProperty(process, key, { value: undefined, writable: false, configurable: false });
    } catch {
      /* locked */
    }
  }
  try {
    Object.defineProperty(process, "env", { value: Object.freeze({}), writable: false, configurable: false });
  } catch {
    /* locked */
  }

  // 5. no network, no cross-thread channels, no global require (pyodide sets one in node)
  for (const key of ["fetch", "WebSocket", "EventSource", "XMLHttpRequest", "BroadcastChannel", "require", "Request", "Response", "Headers", "FormData", "navigator", "MessageChannel", "Worker"]) {
    try {
      Object.defineProperty(globalThis, key, { value: undefined, writable: false, configurable: false });
    } catch {
      /* locked */
    }
  }
}

// ---------- audit (tests): is any host capability still reachable from what the engine holds? ----------
/** The host's capabilities as they were before lockdown(): globals, process methods, builtin module functions. */
function collectOriginals() {
  const found = new Map();
  const add = (v, label) => {
    if ((typeof v === "function" || (v && typeof v === "object")) && !found.has(v)) found.set(v, label);
  };
  add(globalThis, "globalThis");
  add(process, "process");
  add(Function, "Function");
  add(eval, "eval");
  add(Object.getPrototypeOf(async function () {}).constructor, "AsyncFunction");
  add(Object.getPrototypeOf(function* () {}).constructor, "GeneratorFunction");
  add(globalThis.require, "globalThis.require");
  add(globalThis.fetch, "fetch");
  add(globalThis.WebSocket, "WebSocket");
  add(require, "require");
  for (const k of ["binding", "_linkedBinding", "dlopen", "getBuiltinModule", "kill", "chdir"]) add(process[k], `process.${k}`);
  for (const name of ["fs", "fs/promises", "child_process", "net", "tls", "dgram", "dns", "http", "https", "http2", "worker_threads", "cluster", "vm", "inspector", "v8", "os", "module"]) {
    let mod;
    try {
      mod = require(`node:${name}`);
    } catch {
      continue;
    }
    for (const k of Object.getOwnPropertyNames(mod)) {
      const d = Object.getOwnPropertyDescriptor(mod, k);
      if (d && typeof d.value === "function" && k !== "constructor") add(d.value, `${name}.${k}`);
    }
  }
  try {
    const ws = require("ws");
    add(ws, "ws");
    for (const k of Object.getOwnPropertyNames(ws)) if (typeof ws[k] === "function") add(ws[k], `ws.${k}`);
  } catch {
    /* not installed */
  }
  return found;
}

/** Walk own properties (values and accessor functions, without calling getters) and prototypes from the roots. */
function audit(roots, originals) {
  const seen = new Set();
  const stack = roots.filter(Boolean).map((r) => [r, "root"]);
  const findings = [];
  let visited = 0;
  while (stack.length && visited < 500000) {
    const [v, where] = stack.pop();
    if (seen.has(v)) continue;
    seen.add(v);
    visited++;
    const label = originals.get(v);
    if (label) findings.push(`${label} via ${where}`);
    if (typeof v === "function" && v.name === "require" && !label) findings.push(`a require function via ${where}`);
    let keys = [];
    try {
      // typed arrays / buffers (the wasm heap) hold numbers only
      if (!(ArrayBuffer.isView(v) || v instanceof ArrayBuffer || v instanceof SharedArrayBuffer)) keys = Reflect.ownKeys(v);
    } catch {
      /* exotic */
    }
    for (const k of keys) {
      let d;
      try {
        d = Object.getOwnPropertyDescriptor(v, k);
      } catch {
        continue;
      }
      if (!d) continue;
      for (const x of [d.value, d.get, d.set]) {
        if (x && (typeof x === "object" || typeof x === "function") && !seen.has(x)) stack.push([x, `${where}.${String(k)}`.slice(-160)]);
      }
    }
    try {
      const proto = Object.getPrototypeOf(v);
      if (proto && !seen.has(proto)) stack.push([proto, `${where}.__proto__`.slice(-160)]);
    } catch {
      /* exotic */
    }
  }
  return { visited, findings: findings.slice(0, 50) };
}

// ---------- QuickJS ----------
async function bootJavascript() {
  // quickjs-emscripten's index imports all four build variants: load the core and the one variant used instead,
  // so that the permission model's read list names only those packages
  const pkg = require("quickjs-emscripten/package.json");
  const fromQjs = createRequire(require.resolve("quickjs-emscripten/package.json"));
  const core = await import(pathToFileURL(fromQjs.resolve("quickjs-emscripten-core")).href);
  const variant = await import(pathToFileURL(fromQjs.resolve("@jitl/quickjs-wasmfile-release-sync")).href);
  const qjs = { newVariant: core.newVariant, newQuickJSWASMModuleFromVariant: core.newQuickJSWASMModuleFromVariant, RELEASE_SYNC: variant.default ?? variant };
  // a bounded memory: QuickJS's malloc fails (→ "out of memory") when it cannot grow past this
  const maximumPages = 256 * 16; // 256 MiB: the schema's maximum; per-run caps are enforced by memoryCapBytes
  const wasmMemory = new WebAssembly.Memory({ initial: 256, maximum: maximumPages });
  const mod = await qjs.newQuickJSWASMModuleFromVariant(qjs.newVariant(qjs.RELEASE_SYNC, { wasmMemory }));
  return { qjs, mod, wasmMemory, engine: `quickjs-emscripten ${pkg.version} (wasm)` };
}

// Everything copied out of QuickJS is cut inside the guest first (under its own memory limit and deadline): a guest
// string of any size costs this process at most the output budget, MESSAGE_CAP or the return-value cap.
const CONSOLE_SHIM = `(function (write) {
  "use strict";
  const fmt = (v) => {
    if (typeof v === "string") return v;
    if (v === undefined || typeof v === "function" || typeof v === "symbol" || typeof v === "bigint") return String(v);
    if (v instanceof Error) return (v.name || "Error") + ": " + v.message;
    try { const s = JSON.stringify(v); return s === undefined ? String(v) : s; } catch (e) { try { return String(v); } catch (e2) { return "[object]"; } }
  };
  // piece by piece: no joined copy of a large argument
  const line = (fd, args) => { args.forEach((a, i) => { if (i) write(fd, " "); write(fd, fmt(a)); }); write(fd, "\\n"); };
  const out = (...a) => { line(1, a); };
  const err = (...a) => { line(2, a); };
  const c = { log: out, info: out, debug: out, trace: err, warn: err, error: err };
  Object.defineProperty(globalThis, "console", { value: Object.freeze(c), writable: false, enumerable: false, configurable: false });
})`;

const SLICE = `(function (s, n) { return String(s).slice(0, n); })`;

const SERIALIZE = `(function (v, n) {
  if (v === undefined) return undefined;
  let s;
  try { s = JSON.stringify(v); } catch (e) {}
  if (s === undefined) { try { s = JSON.stringify(String(v)); } catch (e) { s = JSON.stringify("[unserializable]"); } }
  return s.length > n ? s.slice(0, n) : s;
})`;

/** name, message (cut to n characters, with its full length) and at most 21 stack lines of a thrown value */
const DESCRIBE = `(function (e, n) {
  const cut = (s, m) => { s = String(s); return [s.length > m ? s.slice(0, m) : s, s.length]; };
  if (e !== null && (typeof e === "object" || typeof e === "function")) {
    let name = "Error", message = "", stack = "";
    try { name = String(e.name ?? "Error").slice(0, 200); } catch (x) {}
    try { message = e.message ?? ""; } catch (x) {}
    try { stack = typeof e.stack === "string" ? e.stack.slice(0, 20000) : ""; } catch (x) {}
    const [m, len] = cut(message, n);
    return { error: true, name, message: m, length: len, stack };
  }
  let text = "";
  try { text = String(e); } catch (x) { text = typeof e; }
  const [m, len] = cut(text, n);
  return { error: false, message: m, length: len, stack: "" };
})`;

function runJavascript(js, req) {
  const { mod } = js;
  const started = performance.now();
  deadline = Date.now() + req.timeoutMs;
  // QuickJS's baseline sits in the first 16 MiB (the memory's initial size); the cap is the request's limit
  memoryCapBytes = Math.max(req.memoryMb * MiB, js.wasmMemory.buffer.byteLength);
  const rt = mod.newRuntime();
  rt.setMemoryLimit(req.memoryMb * MiB);
  rt.setMaxStackSize(256 * 1024);
  rt.setInterruptHandler(() => stopReason() !== 0);
  const ctx = rt.newContext();
  // no dispose: the process (and its wasm memory) is thrown away after the run
  const finish = (r) => ({ ...r, durationMs: performance.now() - started });
  const classify = (errorText) => {
    const reason = stopReason();
    if (reason === STOP_OUTPUT || truncated) return { exitCode: 125, kind: "output_limit", message: `output exceeded ${req.maxOutputBytes} bytes` };
    if (reason === STOP_TIMEOUT || (/interrupted/.test(errorText) && Date.now() > deadline)) return { exitCode: 124, kind: "timeout", message: `timed out after ${req.timeoutMs} ms` };
    if (/out of memory|memory limit/i.test(errorText) || memoryRefused) return { exitCode: 137, kind: "memory", message: `memory limit of ${req.memoryMb} MB exceeded` };
    return null;
  };
  const fn = (src) => ctx.unwrapResult(ctx.evalCode(src, "<sandbox>"));
  const slice = fn(SLICE);
  /** a guest string, copied out in at most n characters (the cut happens in the guest) */
  const copyString = (h, n) => {
    const lenH = ctx.getProp(h, "length");
    const len = ctx.typeof(lenH) === "number" ? ctx.getNumber(lenH) : 0;
    lenH.dispose();
    if (len <= n) return { text: ctx.getString(h), length: len };
    const nH = ctx.newNumber(n);
    const r = ctx.callFunction(slice, ctx.undefined, h, nH);
    nH.dispose();
    if (r.error) {
      r.error.dispose();
      return { text: "", length: len };
    }
    const text = ctx.getString(r.value);
    r.value.dispose();
    return { text, length: len };
  };
  /** what was thrown, described inside the guest and copied out bounded */
  const describe = (errH) => {
    const nH = ctx.newNumber(MESSAGE_CAP);
    const d = ctx.callFunction(describeFn, ctx.undefined, errH, nH);
    nH.dispose();
    if (d.error) {
      d.error.dispose();
      return null;
    }
    const v = ctx.dump(d.value);
    d.value.dispose();
    return v && typeof v === "object" ? v : null;
  };
  const describeFn = fn(DESCRIBE);
  try {
    // console: the guest's only capability, an append to the capped output
    const write = ctx.newFunction("write", (fdH, textH) => {
      const fd = ctx.getNumber(fdH) === 2 ? 2 : 1;
      if (truncated) return;
      const { text, length } = copyString(textH, maxOutputBytes - outputBytes + 1);
      // a string that could not be copied (the guest's memory is full): the output is cut here
      emitText(fd, text.length === 0 && length > 0 ? "\uFFFD".repeat(maxOutputBytes + 1) : text);
    });
    const shim = fn(CONSOLE_SHIM);
    ctx.unwrapResult(ctx.callFunction(shim, ctx.undefined, write)).dispose();
    shim.dispose();
    write.dispose();
    const ser = fn(SERIALIZE);

    let result = ctx.evalCode(req.code, "main.js");
    // settle promises (async IIFEs): there are no timers, so pending jobs are all there is
    if (!result.error) {
      for (let i = 0; i < 100000; i++) {
        const jobs = rt.executePendingJobs(-1);
        if (jobs.error) {
          jobs.error.dispose();
          break;
        }
        if (jobs.value === 0) break;
      }
      const state = ctx.getPromiseState(result.value);
      if (state.type === "fulfilled" && !state.notAPromise) {
        result.value.dispose();
        result = { value: state.value };
      } else if (state.type === "rejected") {
        result.value.dispose();
        result = { error: state.error };
      } else if (state.type === "pending") {
        result.value.dispose();
        result = { error: ctx.newError("the script's promise never settled (there are no timers or I/O in the sandbox)") };
      }
    }
    if (result.error) {
      const d = describe(result.error);
      result.error.dispose();
      const messageCut = !!d && d.length > String(d.message).length;
      const message = d ? `${String(d.message)}${messageCut ? `… (${d.length - String(d.message).length} more characters)` : ""}` : "";
      const text = !d ? "Uncaught error" : d.error ? `${d.name}: ${message}` : `Uncaught ${message}`;
      const special = classify(text);
      if (special) return finish(special);
      const stackLines = d && typeof d.stack === "string" ? d.stack.split("\n").filter(Boolean) : [];
      const stack = stackLines.length > 20 ? [...stackLines.slice(0, 20), `    ... ${stackLines.length - 20} more frames`].join("\n") : stackLines.join("\n");
      emitText(2, `${text}\n${stack}`.replace(/\n*$/, "\n"));
      return finish({ exitCode: 1, kind: "runtime", message: text, messageCut });
    }
    // the return value, JSON-serialised inside the guest (under the same deadline and memory limit)
    const capH = ctx.newNumber(req.maxOutputBytes + 1);
    const sr = ctx.callFunction(ser, ctx.undefined, result.value, capH);
    capH.dispose();
    result.value.dispose();
    ser.dispose();
    let returnJson = null;
    if (sr.error) {
      const d = describe(sr.error);
      sr.error.dispose();
      const special = classify(d ? String(d.message) : "");
      if (special) return finish(special);
    } else {
      returnJson = ctx.typeof(sr.value) === "string" ? copyString(sr.value, req.maxOutputBytes + 1).text : null;
      sr.value.dispose();
    }
    const special = classify("");
    if (special && special.kind === "output_limit") return finish(special);
    return finish({ exitCode: 0, kind: null, message: null, returnJson });
  } catch (e) {
    // a host-side throw out of the engine (native stack overflow, wasm abort)
    const text = capMessage(String(e?.message ?? e));
    const special = classify(text);
    if (special) return finish(special);
    if (/call stack/i.test(text)) {
      emitText(2, `RangeError: ${text}\n`);
      return finish({ exitCode: 1, kind: "runtime", message: `RangeError: ${text}` });
    }
    return finish({ exitCode: 125, kind: "crash", message: `sandbox engine failed: ${text}` });
  }
}

// ---------- CPython (pyodide) ----------
const BLOCKED_MODULES = ["js", "pyodide_js", "pyodide", "_pyodide", "_pyodide_core", "micropip", "ctypes", "_ctypes", "pyodide_http"];

const PY_HARNESS = String.raw`
import sys, os, ast, builtins, json, traceback, posix

_BLOCKED = set(${JSON.stringify(BLOCKED_MODULES)})

class _SandboxBlocker:
    """Refuses the modules that lead out of the interpreter (the JavaScript FFI, ctypes)."""
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.split(".")[0] in _BLOCKED:
            raise ModuleNotFoundError(f"module {name!r} is not available in the sandbox", name=name)
        return None

for _name in list(sys.modules):
    if _name.split(".")[0] in _BLOCKED:
        sys.modules[_name] = None
sys.meta_path.insert(0, _SandboxBlocker)

def _no_processes(*args, **kwargs):
    raise OSError(38, "processes are not available in the sandbox")
for _mod in (os, posix):
    for _fn in ("system", "popen", "execv", "execve", "execl", "execle", "execlp", "execvp", "execvpe", "fork", "forkpty", "spawnv", "spawnve", "posix_spawn", "posix_spawnp", "kill", "killpg"):
        if hasattr(_mod, _fn):
            setattr(_mod, _fn, _no_processes)
os.environ.pop("_", None)

# asyncio: pyodide's loop lives on JavaScript timers, which the sandbox does not have; a plain loop without I/O
# (timers and callbacks only, sleeping with time.sleep) serves asyncio.run / asyncio.Runner / new_event_loop.
import asyncio, warnings, time, linecache
class _NullSelector:
    def select(self, timeout=None):
        if timeout is None:
            raise RuntimeError("the event loop has nothing left to wait for (there is no I/O in the sandbox)")
        if timeout > 0:
            time.sleep(timeout)
        return []
    def close(self):
        pass
class _SandboxLoop(asyncio.BaseEventLoop):
    def __init__(self):
        super().__init__()
        self._selector = _NullSelector()
    def _process_events(self, event_list):
        pass
    def _write_to_self(self):
        pass
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    class _SandboxPolicy(asyncio.DefaultEventLoopPolicy):
        _loop_factory = _SandboxLoop
    asyncio.set_event_loop_policy(_SandboxPolicy())
asyncio.events._set_running_loop(None)
def _asyncio_run(main, *, debug=None, loop_factory=None):
    return asyncio.runners.run(main, debug=debug, loop_factory=loop_factory or _SandboxLoop)
asyncio.run = _asyncio_run
sys.argv = ["main.py"]
sys.stdout.reconfigure(line_buffering=True)
sys.stderr.reconfigure(line_buffering=True)

def _user_tb(exc):
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != "main.py":
        tb = tb.tb_next
    return tb

def _run(src, max_json):
    g = {"__name__": "__main__", "__builtins__": builtins, "__file__": "main.py"}
    out = {"status": "ok", "exit": 0, "type": None, "message": None, "value": None}
    linecache.cache["main.py"] = (len(src), None, src.splitlines(True), "main.py")
    try:
        try:
            tree = ast.parse(src, "main.py", "exec")
        except SyntaxError as e:
            sys.stderr.write("".join(traceback.format_exception_only(type(e), e)))
            out.update(status="error", type="SyntaxError", message=f"SyntaxError: {e.msg} (line {e.lineno})")
            return json.dumps(out)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, "main.py", "exec"), g)
        value = eval(compile(last, "main.py", "eval"), g) if last is not None else None
        if value is not None:
            try:
                text = json.dumps(value, allow_nan=False)
            except Exception:
                text = json.dumps(repr(value))
            if len(text) > max_json:
                text = text[: max_json + 1]  # the parent sees the excess, cuts it and reports truncated
            out["value"] = text
    except SystemExit as e:
        code = e.code
        if code is None or code == 0:
            pass
        else:
            if not isinstance(code, int):
                sys.stderr.write(str(code) + "\n")
            out.update(status="error", exit=1, type="SystemExit", message=f"SystemExit: {code}")
    except BaseException as e:
        g.clear()
        if isinstance(e, MemoryError):
            out.update(status="error", type="MemoryError", message="MemoryError")
        elif isinstance(e, KeyboardInterrupt):
            out.update(status="error", type="KeyboardInterrupt", message="KeyboardInterrupt")
        else:
            try:
                text = "".join(traceback.format_exception(type(e), e, _user_tb(e)))
            except BaseException:
                text = f"{type(e).__name__}: {e}\n"
            try:
                sys.stderr.write(text)
            except KeyboardInterrupt:
                pass  # the output cap stops the run; the exception is still what is reported
            line = traceback.format_exception_only(type(e), e)[-1].strip()
            if len(line) > 4096:  # only a bounded message leaves the interpreter
                line = f"{line[:4096]}… ({len(line) - 4096} more characters)"
                out["cut"] = True
            out.update(status="error", type=type(e).__name__, message=line)
    finally:
        g.clear()
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
    return json.dumps(out)
`;

async function bootPython() {
  const dir = path.dirname(require.resolve("pyodide/package.json"));
  // pyodide's NODEFS reads the fs flag constants through process.binding, which the permission model refuses:
  // hand it the same numbers from the public fs module (lockdown() replaces this again)
  Object.defineProperty(process, "binding", {
    value: (name) => {
      if (name === "constants") return { fs: { ...fs.constants }, os: {} };
      throw new Error(`process.binding(${JSON.stringify(String(name))}) is not available in the sandbox`);
    },
    writable: true,
    configurable: true,
  });
  const { loadPyodide, version } = await import("pyodide");
  const pkg = require("pyodide/package.json");
  const jsglobals = Object.freeze(Object.create(null));
  const config = {
    indexURL: dir.endsWith("/") ? dir : `${dir}/`,
    jsglobals,
    env: { HOME: "/home/pyodide" },
    args: [],
    stdout: () => {},
    stderr: () => {},
    checkAPIVersion: true,
  };
  // Start-up: a full boot takes seconds (CPython initialises from the stdlib zip); restoring the memory image
  // of a freshly booted interpreter takes a few hundred ms. The image is made by the first worker right after
  // loadPyodide() — before any harness or guest code ran — and kept by the parent for the next workers.
  let py = null;
  let bootKind = "full";
  const image = opts.snapshotBytes > 0 ? readExactly(opts.snapshotBytes) : null;
  if (image) {
    try {
      py = await loadPyodide({ ...config, _loadSnapshot: image });
      bootKind = "snapshot";
    } catch (e) {
      send({ t: "snapshot_failed", message: String(e?.message ?? e).slice(0, 300) });
      py = null;
    }
  }
  if (!py) {
    py = await loadPyodide({ ...config, _makeSnapshot: !!opts.makeSnapshot });
    if (opts.makeSnapshot) {
      // no guest code exists in this process yet: the image is the interpreter's state right after boot
      try {
        const made = py.makeMemorySnapshot();
        send({ t: "snapshot", bytes: made.byteLength });
        sendBytes(made);
      } catch (e) {
        send({ t: "snapshot_failed", message: String(e?.message ?? e).slice(0, 300) });
      }
    }
  }
  limitMemfs(py);
  py.setStdin({ stdin: () => null });
  py.setStdout({ write: (buf) => (emitBytes(1, buf), buf.length) });
  py.setStderr({ write: (buf) => (emitBytes(2, buf), buf.length) });
  // CPython reads [0] every few thousand bytecodes: a getter lets it see the deadline with no second thread
  const interrupt = Object.freeze(
    Object.defineProperty({}, "0", {
      get: () => {
        stopReason();
        // the parent kills this process GRACE_MS after the deadline; should the parent be gone, a guest that keeps
        // catching KeyboardInterrupt still ends here
        if (Date.now() > deadline + 5000) exitNow(124);
        return ctl[0];
      },
      set: (v) => {
        ctl[0] = v === 2 ? 2 : 0;
      },
    }),
  );
  py.setInterruptBuffer(interrupt);
  const ns = py.toPy({});
  py.runPython(PY_HARNESS, { globals: ns, filename: "<sandbox>" });
  const run = ns.get("_run");
  const pyVersion = py.runPython("import sys; sys.version.split()[0]", { globals: ns });
  // take out the host-facing parts of the API object before the guest could ever reach it
  for (const fsName of ["NODEFS", "NODERAWFS", "IDBFS", "WORKERFS", "PROXYFS", "NATIVEFS_ASYNC"]) delete py.FS.filesystems[fsName];
  for (const key of ["loadPackage", "loadPackagesFromImports", "mountNodeFS", "mountNativeFS", "registerJsModule", "unregisterJsModule", "setStdin", "setStdout", "setStderr", "setInterruptBuffer"]) {
    try {
      Object.defineProperty(py, key, { value: deny(`pyodide.${key}`), writable: false, configurable: false });
    } catch {
      /* locked */
    }
  }
  try {
    delete py._module.NODEFS;
    delete py._api.tests.Function; // pyodide keeps the real Function constructor here for its own test-suite
  } catch {
    /* not configurable */
  }
  return { py, run, bootKind, roots: [py, py._module, py._api, jsglobals], heap: () => py._module.HEAP8.buffer.byteLength, engine: `pyodide ${pkg.version} / CPython ${pyVersion} (wasm; pyodide ${version})` };
}

/**
 * Files in pyodide's in-memory file system live in JavaScript typed arrays, outside the wasm memory and its cap:
 * count their bytes and answer ENOSPC past memFsBudget (the request's memoryMb). Writes and truncations that grow a
 * file are counted; unlink gives the bytes back (MEMFS has no hard links).
 */
let memFsBudget = 64 * MiB;
let memFsUsed = 0;
function limitMemfs(py) {
  const FS = py.FS;
  const MEMFS = FS.filesystems.MEMFS;
  const ENOSPC = 51;
  const size = (node) => node?.contents?.length ?? 0;
  const lock = (obj, key, value) => Object.defineProperty(obj, key, { value, writable: false, configurable: false });
  const write = MEMFS.stream_ops.write;
  // file nodes take their stream operations from ops_table (copied from stream_ops when MEMFS was set up)
  const tables = [MEMFS.stream_ops, MEMFS.ops_table?.file?.stream].filter(Boolean);
  const limitedWrite = function (stream, buffer, offset, length, position, canOwn) {
    const node = stream.node;
    const before = size(node);
    // the most a write can grow the storage to: its end, or double (MEMFS grows by doubling below 1 MiB)
    const worst = Math.max(position + length, before < MiB ? before * 2 : Math.ceil(before * 1.125));
    if (worst > before && memFsUsed + (worst - before) > memFsBudget) throw new FS.ErrnoError(ENOSPC);
    const n = write.call(this, stream, buffer, offset, length, position, canOwn);
    memFsUsed += size(node) - before;
    return n;
  };
  for (const t of tables) lock(t, "write", limitedWrite);
  const resize = MEMFS.resizeFileStorage;
  lock(MEMFS, "resizeFileStorage", function (node, newSize) {
    const before = size(node);
    if (newSize > before && memFsUsed + (newSize - before) > memFsBudget) throw new FS.ErrnoError(ENOSPC);
    resize.call(this, node, newSize);
    memFsUsed += size(node) - before;
  });
  const unlink = FS.unlink;
  lock(FS, "unlink", function (path) {
    let node = null;
    try {
      node = FS.lookupPath(path).node;
    } catch {
      /* unlink reports it */
    }
    const before = size(node);
    unlink.call(this, path);
    memFsUsed = Math.max(0, memFsUsed - before);
  });
}

function runPython(p, req) {
  memFsBudget = req.memoryMb * MiB;
  const started = performance.now();
  memoryCapBytes = p.heap() + req.memoryMb * MiB;
  let raw;
  try {
    raw = p.run(req.code, Math.max(1024, req.maxOutputBytes));
  } catch (e) {
    const text = String(e?.message ?? e);
    const durationMs = performance.now() - started;
    const reason = stopReason();
    if (reason === STOP_OUTPUT || truncated) return { exitCode: 125, kind: "output_limit", message: `output exceeded ${req.maxOutputBytes} bytes`, durationMs };
    if (reason === STOP_TIMEOUT) return { exitCode: 124, kind: "timeout", message: `timed out after ${req.timeoutMs} ms`, durationMs };
    // a stack overflow first: deep recursion past the recursion limit exhausts the native stack (and on the way
    // down pyodide's fatal-error path may ask for memory too), and it is not a memory error
    if (/call stack|stack overflow/i.test(text)) {
      const message = `RecursionError: stack overflow (${text.slice(0, 200)}): the recursion went deeper than the interpreter's stack allows`;
      emitText(2, `${message}\n`);
      return { exitCode: 1, kind: "runtime", message, durationMs };
    }
    if (memoryRefused || /memory/i.test(text)) return { exitCode: 137, kind: "memory", message: `memory limit of ${req.memoryMb} MB exceeded`, durationMs };
    return { exitCode: 125, kind: "crash", message: `python interpreter failed: ${text.split("\n").slice(-3).join(" ").trim()}`, durationMs };
  }
  const durationMs = performance.now() - started;
  const r = JSON.parse(raw);
  const reason = stopReason();
  const guestError = r.status === "error" && r.type !== "KeyboardInterrupt" && r.type !== "MemoryError";
  if ((reason === STOP_OUTPUT || truncated) && !guestError) return { exitCode: 125, kind: "output_limit", message: `output exceeded ${req.maxOutputBytes} bytes`, durationMs };
  if (r.status === "ok") return { exitCode: 0, kind: null, message: null, returnJson: r.value, durationMs };
  if (r.type === "KeyboardInterrupt" && reason === STOP_TIMEOUT) return { exitCode: 124, kind: "timeout", message: `timed out after ${req.timeoutMs} ms`, durationMs };
  if (r.type === "MemoryError") return { exitCode: 137, kind: "memory", message: `MemoryError: memory limit of ${req.memoryMb} MB exceeded`, durationMs };
  if (r.type === "KeyboardInterrupt") emitText(2, "KeyboardInterrupt\n");
  return { exitCode: 1, kind: "runtime", message: r.message, messageCut: !!r.cut, durationMs };
}

// ---------- main ----------
/** Read exactly n bytes from stdin (blocking: the parent writes them right after the start). */
function readExactly(n) {
  const buf = Buffer.allocUnsafe(n);
  let off = 0;
  while (off < n) {
    let got;
    try {
      got = readSync(0, buf, off, n - off, null);
    } catch (e) {
      if (e?.code !== "EAGAIN") throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      continue;
    }
    if (got === 0) throw new Error("stdin closed early");
    off += got;
  }
  return buf;
}

/** The run request: one line of JSON on stdin, at most 4 MiB (the code itself is at most 100 KiB). */
function readRequest() {
  const chunks = [];
  let size = 0;
  const one = Buffer.allocUnsafe(65536);
  for (;;) {
    let got;
    try {
      got = readSync(0, one, 0, one.length, null);
    } catch (e) {
      if (e?.code !== "EAGAIN") throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      continue;
    }
    if (got === 0) return null;
    const nl = one.subarray(0, got).indexOf(10);
    chunks.push(Buffer.from(one.subarray(0, nl === -1 ? got : nl)));
    size += got;
    if (nl !== -1) break;
    if (size > 4 * MiB) return null;
  }
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

async function main() {
  const t0 = performance.now();
  let engine;
  let bootMs = 0;
  try {
    engine = language === "python" ? await bootPython() : await bootJavascript();
    bootMs = performance.now() - t0;
    const originals = opts.audit ? collectOriginals() : null;
    // tests only (configureSandbox): show that the permission model holds on its own, without this layer
    if (opts.lockdown !== false) lockdown();
    if (originals) send({ t: "audit", findings: audit(engine.roots ?? [], originals) });
  } catch (e) {
    send({ t: "boot_error", message: `${String(e?.stack ?? e).split("\n").slice(0, 4).join(" | ")}${e?.resource ? ` (${e.permission ?? "access"}: ${e.resource})` : ""}` });
    process.exitCode = 1;
    return;
  }
  send({ t: "ready", engine: engine.engine, bootMs, bootKind: engine.bootKind ?? "full" });
  const msg = readRequest();
  if (!msg || msg.t !== "run") return;
  maxOutputBytes = msg.maxOutputBytes;
  const result = language === "python" ? runPython(engine, msg) : runJavascript(engine, msg);
  // the engines cut their messages to MESSAGE_CAP already (with a note of how much more there was); this is a backstop
  const message = result.message == null ? null : result.message.length > 2 * MESSAGE_CAP ? capMessage(result.message) : result.message;
  send({ t: "result", ...result, message, messageCut: !!result.messageCut || (message !== null && message.length !== result.message.length), truncated });
  // the engine may have left work queued (pyodide's timers): this process has done its one run
  process.exit(0);
}

main();
