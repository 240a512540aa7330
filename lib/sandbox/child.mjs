// Sandbox worker: one code execution in a WebAssembly engine, inside a worker_threads Worker.
//
// Plain ESM (not TypeScript) so that it runs unchanged under vitest/tsx and behind `next start`; the parent
// (lib/sandbox/index.ts) spawns it by file path. Protocol (parentPort messages):
//   worker → parent  { t: "ready", engine, bootMs, bootKind } | { t: "boot_error", message }
//                    python only: { t: "snapshot", image: SharedArrayBuffer } | { t: "snapshot_failed", message }
//   parent → worker  { t: "run", code, timeoutMs, memoryMb, maxOutputBytes }
//   worker → parent  { t: "out", fd: 1 | 2, text } (already capped) | { t: "truncated" }
//                    { t: "result", exitCode, kind, message, returnJson, durationMs }
// The parent may also stop a run through the shared control block (workerData.ctl, an Int32Array):
//   ctl[0] = 2 asks CPython for a KeyboardInterrupt (pyodide's interrupt buffer),
//   ctl[1] = why the run is being stopped (1 timeout, 2 output limit); QuickJS's interrupt handler polls it.
// and kills the worker outright (worker.terminate()) when the soft stop does not work in time.
//
// Containment, in layers:
//  1. the engine: QuickJS gets no host object but a `console` whose only capability is to append to the
//     capped output; CPython lives in pyodide's in-memory file system, with `js`/`pyodide_js`/ctypes & co.
//     unimportable and os.system/subprocess refused;
//  2. memory: the engine's wasm memory cannot grow past the limit (QuickJS: a bounded WebAssembly.Memory
//     plus runtime.setMemoryLimit; CPython: WebAssembly.Memory.prototype.grow refuses → MemoryError);
//     the worker's own JS heap is bounded by resourceLimits (set by the parent);
//  3. lockdown of this thread once the engine is loaded (see lockdown()): no code generation from strings
//     (eval / Function constructors), no module loading, the dangerous node builtins (fs, child_process,
//     net, http, worker_threads, ...) replaced by throwing stubs, no fetch/WebSocket, no process.binding,
//     so that even a guest that reached a JavaScript object of pyodide's finds nothing to use;
//  4. the parent: empty env, wall-clock timeout, output cap, worker.terminate().
import { parentPort, workerData } from "node:worker_threads";
import nodeModule, { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const syncBuiltinESMExports = nodeModule.syncBuiltinESMExports;
const { language } = workerData;
const ctl = new Int32Array(workerData.ctl);
const MiB = 1024 * 1024;
const STOP_TIMEOUT = 1;
const STOP_OUTPUT = 2;

// ---------- memory: a ceiling on every wasm memory of this thread ----------
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
  Atomics.compareExchange(ctl, 1, 0, reason);
  Atomics.store(ctl, 0, 2); // SIGINT for CPython; QuickJS polls ctl[1]
}

/** Append UTF-8 bytes to fd 1/2; returns false once the budget is spent (the run is then being stopped). */
const decoders = { 1: new TextDecoder("utf-8"), 2: new TextDecoder("utf-8") };
function emitBytes(fd, bytes) {
  if (truncated) return false;
  const room = maxOutputBytes - outputBytes;
  if (bytes.length <= room) {
    outputBytes += bytes.length;
    const text = decoders[fd].decode(bytes, { stream: true });
    if (text) parentPort.postMessage({ t: "out", fd, text });
    return true;
  }
  outputBytes = maxOutputBytes;
  truncated = true;
  const text = decoders[fd].decode(bytes.subarray(0, Math.max(0, room))).replace(/\uFFFD+$/, "");
  if (text) parentPort.postMessage({ t: "out", fd, text });
  parentPort.postMessage({ t: "truncated" });
  requestStop(STOP_OUTPUT);
  return false;
}
function emitText(fd, text) {
  return emitBytes(fd, encoder.encode(text));
}

function stopReason() {
  return Atomics.load(ctl, 1);
}

// ---------- lockdown of this thread ----------
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
  //    throwing stubs: module objects are per-thread, so this touches nothing outside this worker.
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
    // keep our own line to the parent
    if (name === "worker_threads") {
      for (const key of ["Worker", "MessageChannel", "BroadcastChannel", "receiveMessageOnPort", "moveMessagePortToContext", "markAsUntransferable", "setEnvironmentData", "getEnvironmentData"]) {
        try {
          Object.defineProperty(mod, key, { value: deny(`worker_threads.${key}`), writable: false, configurable: false });
        } catch {
          /* frozen */
        }
      }
      continue;
    }
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
  const qjs = await import("quickjs-emscripten");
  const pkg = require("quickjs-emscripten/package.json");
  // a bounded memory: QuickJS's malloc fails (→ "out of memory") when it cannot grow past this
  const maximumPages = 256 * 16; // 256 MiB: the schema's maximum; per-run caps are enforced by memoryCapBytes
  const wasmMemory = new WebAssembly.Memory({ initial: 256, maximum: maximumPages });
  const mod = await qjs.newQuickJSWASMModuleFromVariant(qjs.newVariant(qjs.RELEASE_SYNC, { wasmMemory }));
  return { qjs, mod, wasmMemory, engine: `quickjs-emscripten ${pkg.version} (wasm)` };
}

const CONSOLE_SHIM = `(function (write) {
  "use strict";
  const fmt = (v) => {
    if (typeof v === "string") return v;
    if (v === undefined || typeof v === "function" || typeof v === "symbol" || typeof v === "bigint") return String(v);
    if (v instanceof Error) return (v.name || "Error") + ": " + v.message;
    try { const s = JSON.stringify(v); return s === undefined ? String(v) : s; } catch (e) { try { return String(v); } catch (e2) { return "[object]"; } }
  };
  const line = (args) => args.map(fmt).join(" ") + "\\n";
  const out = (...a) => { write(1, line(a)); };
  const err = (...a) => { write(2, line(a)); };
  const c = { log: out, info: out, debug: out, trace: err, warn: err, error: err };
  Object.defineProperty(globalThis, "console", { value: Object.freeze(c), writable: false, enumerable: false, configurable: false });
})`;

const SERIALIZE = `(function (v) {
  if (v === undefined) return undefined;
  try { const s = JSON.stringify(v); if (s !== undefined) return s; } catch (e) {}
  try { return JSON.stringify(String(v)); } catch (e) { return JSON.stringify("[unserializable]"); }
})`;

function runJavascript(js, req) {
  const { mod } = js;
  const started = performance.now();
  const deadline = Date.now() + req.timeoutMs;
  // QuickJS's baseline sits in the first 16 MiB (the memory's initial size); the cap is the request's limit
  memoryCapBytes = Math.max(req.memoryMb * MiB, js.wasmMemory.buffer.byteLength);
  const rt = mod.newRuntime();
  rt.setMemoryLimit(req.memoryMb * MiB);
  rt.setMaxStackSize(256 * 1024);
  rt.setInterruptHandler(() => stopReason() !== 0 || Date.now() > deadline);
  const ctx = rt.newContext();
  // no dispose: the worker (and its wasm memory) is thrown away after the run
  const finish = (r) => ({ ...r, durationMs: performance.now() - started });
  const classify = (errorText) => {
    const reason = stopReason();
    if (reason === STOP_OUTPUT || truncated) return { exitCode: 125, kind: "output_limit", message: `output exceeded ${req.maxOutputBytes} bytes` };
    if (reason === STOP_TIMEOUT || (/interrupted/.test(errorText) && Date.now() > deadline)) return { exitCode: 124, kind: "timeout", message: `timed out after ${req.timeoutMs} ms` };
    if (/out of memory|memory limit/i.test(errorText) || memoryRefused) return { exitCode: 137, kind: "memory", message: `memory limit of ${req.memoryMb} MB exceeded` };
    return null;
  };
  try {
    // console: the guest's only capability, an append to the capped output
    const write = ctx.newFunction("write", (fdH, textH) => {
      const fd = ctx.getNumber(fdH) === 2 ? 2 : 1;
      emitText(fd, ctx.getString(textH));
    });
    const shim = ctx.unwrapResult(ctx.evalCode(CONSOLE_SHIM, "<sandbox>"));
    ctx.unwrapResult(ctx.callFunction(shim, ctx.undefined, write)).dispose();
    shim.dispose();
    write.dispose();
    const ser = ctx.unwrapResult(ctx.evalCode(SERIALIZE, "<sandbox>"));

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
      let dumped;
      try {
        dumped = ctx.dump(result.error);
      } catch {
        dumped = "error";
      }
      result.error.dispose();
      const text = typeof dumped === "object" && dumped ? `${dumped.name ?? "Error"}: ${dumped.message ?? ""}` : `Uncaught ${String(dumped)}`;
      const special = classify(text);
      if (special) return finish(special);
      const stackLines = typeof dumped === "object" && dumped && typeof dumped.stack === "string" ? dumped.stack.split("\n").filter(Boolean) : [];
      const stack = stackLines.length > 20 ? [...stackLines.slice(0, 20), `    ... ${stackLines.length - 20} more frames`].join("\n") : stackLines.join("\n");
      emitText(2, `${text}\n${stack}`.replace(/\n*$/, "\n"));
      return finish({ exitCode: 1, kind: "runtime", message: text });
    }
    // the return value, JSON-serialised inside the guest (under the same deadline and memory limit)
    const sr = ctx.callFunction(ser, ctx.undefined, result.value);
    result.value.dispose();
    ser.dispose();
    let returnJson = null;
    if (sr.error) {
      const text = String(ctx.dump(sr.error)?.message ?? "");
      sr.error.dispose();
      const special = classify(text);
      if (special) return finish(special);
    } else {
      const s = ctx.typeof(sr.value) === "string" ? ctx.getString(sr.value) : undefined;
      sr.value.dispose();
      returnJson = s === undefined ? null : s.length > req.maxOutputBytes ? s.slice(0, req.maxOutputBytes + 1) : s;
    }
    const special = classify("");
    if (special && special.kind === "output_limit") return finish(special);
    return finish({ exitCode: 0, kind: null, message: null, returnJson });
  } catch (e) {
    // a host-side throw out of the engine (native stack overflow, wasm abort)
    const text = String(e?.message ?? e);
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
            sys.stderr.write(text)
            line = traceback.format_exception_only(type(e), e)[-1].strip()
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
  if (workerData.snapshot) {
    try {
      py = await loadPyodide({ ...config, _loadSnapshot: new Uint8Array(workerData.snapshot) });
      bootKind = "snapshot";
    } catch (e) {
      parentPort.postMessage({ t: "snapshot_failed", message: String(e?.message ?? e).slice(0, 300) });
      py = null;
    }
  }
  if (!py) {
    py = await loadPyodide({ ...config, _makeSnapshot: !!workerData.makeSnapshot });
    if (workerData.makeSnapshot) {
      try {
        const image = py.makeMemorySnapshot();
        const shared = new SharedArrayBuffer(image.byteLength);
        new Uint8Array(shared).set(image);
        parentPort.postMessage({ t: "snapshot", image: shared });
      } catch (e) {
        parentPort.postMessage({ t: "snapshot_failed", message: String(e?.message ?? e).slice(0, 300) });
      }
    }
  }
  py.setStdin({ stdin: () => null });
  py.setStdout({ write: (buf) => (emitBytes(1, buf), buf.length) });
  py.setStderr({ write: (buf) => (emitBytes(2, buf), buf.length) });
  py.setInterruptBuffer(ctl);
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

function runPython(p, req) {
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
    if (memoryRefused || /memory/i.test(text)) return { exitCode: 137, kind: "memory", message: `memory limit of ${req.memoryMb} MB exceeded`, durationMs };
    if (/call stack/i.test(text)) {
      emitText(2, `RecursionError: ${text}\n`);
      return { exitCode: 1, kind: "runtime", message: `RecursionError: ${text}`, durationMs };
    }
    return { exitCode: 125, kind: "crash", message: `python interpreter failed: ${text.split("\n").slice(-3).join(" ").trim()}`, durationMs };
  }
  const durationMs = performance.now() - started;
  const r = JSON.parse(raw);
  const reason = stopReason();
  if (reason === STOP_OUTPUT || truncated) return { exitCode: 125, kind: "output_limit", message: `output exceeded ${req.maxOutputBytes} bytes`, durationMs };
  if (r.status === "ok") return { exitCode: 0, kind: null, message: null, returnJson: r.value, durationMs };
  if (r.type === "KeyboardInterrupt" && reason === STOP_TIMEOUT) return { exitCode: 124, kind: "timeout", message: `timed out after ${req.timeoutMs} ms`, durationMs };
  if (r.type === "MemoryError") return { exitCode: 137, kind: "memory", message: `MemoryError: memory limit of ${req.memoryMb} MB exceeded`, durationMs };
  if (r.type === "KeyboardInterrupt") emitText(2, "KeyboardInterrupt\n");
  return { exitCode: 1, kind: "runtime", message: r.message, durationMs };
}

// ---------- main ----------
async function main() {
  const t0 = performance.now();
  let engine;
  let bootMs = 0;
  try {
    engine = language === "python" ? await bootPython() : await bootJavascript();
    bootMs = performance.now() - t0;
    const originals = workerData.audit ? collectOriginals() : null;
    lockdown();
    if (originals) parentPort.postMessage({ t: "audit", findings: audit(engine.roots ?? [], originals) });
  } catch (e) {
    parentPort.postMessage({ t: "boot_error", message: String(e?.stack ?? e).split("\n").slice(0, 4).join(" | ") });
    return;
  }
  parentPort.postMessage({ t: "ready", engine: engine.engine, bootMs, bootKind: engine.bootKind ?? "full" });
  parentPort.once("message", (msg) => {
    if (!msg || msg.t !== "run") return;
    maxOutputBytes = msg.maxOutputBytes;
    const result = language === "python" ? runPython(engine, msg) : runJavascript(engine, msg);
    parentPort.postMessage({ t: "result", ...result, truncated });
    parentPort.close();
  });
}

main();
