// lib/sandbox: the CODE mode's ExecuteInSandbox. Every hostile case is followed by a trivial run in the same
// language (the host stays usable) and by a check that no sandbox process is left behind and the host heap is fine.
// The child-process specifics (permission model, the guest that ends its own process, escapes) are in
// test/sandbox-escape.test.ts.
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  auditSandboxChild,
  codeBlock,
  configureSandbox,
  runInSandbox as sandboxRun,
  SANDBOX_LIMITS,
  sandboxInfo,
  sandboxStats,
  shutdownSandbox,
  type Language,
  type SandboxResult,
} from "../lib/sandbox";

// a busy machine must not turn a test about memory or output into a timeout: the longest run time
// unless a test sets its own (the timeout tests do)
const runInSandbox: typeof sandboxRun = (req) => sandboxRun({ timeoutMs: SANDBOX_LIMITS.timeoutMs.max, ...req });

const MiB = 1024 * 1024;
/** the output cap the output-limit tests set (bytes) */
const OUTPUT_CAP = 4096;
/** what the cut may leave unused below the cap: at most the last line, which did not fit whole */
const CUT_SLACK = 96;
/** the static audit walks pyodide's whole JavaScript surface: thousands of objects, not an empty walk */
const AUDIT_AT_LEAST = 1000;
const workerHandles = () => process.getActiveResourcesInfo().filter((r) => r === "ProcessWrap").length;
let baseHandles = 0;
let baseHeap = 0;
const info = await sandboxInfo();

async function waitFor(check: () => boolean, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** The host is fine: a trivial program runs, no sandbox process is left running, the test process's heap did not balloon. */
async function expectHealthy(language: Language): Promise<void> {
  const code = language === "python" ? "print('ok')\n6 * 7" : "console.log('ok'); 6 * 7";
  const r = await runInSandbox({ language, code });
  expect(r, JSON.stringify(r)).toMatchObject({ ok: true, exitCode: 0, stdout: "ok\n", stderr: "", returnValue: 42, error: null, truncated: false });
  expect(sandboxStats()).toMatchObject({ workers: 0, spares: 0, running: 0, queued: 0 });
  expect(await waitFor(() => workerHandles() <= baseHandles)).toBe(true);
  expect(process.memoryUsage().heapUsed).toBeLessThan(baseHeap + 96 * MiB);
}

function outputBytes(r: SandboxResult): number {
  return Buffer.byteLength(r.stdout, "utf8") + Buffer.byteLength(r.stderr, "utf8");
}

beforeAll(() => {
  configureSandbox({ prewarmPython: false, prewarmJavascript: false });
  baseHandles = workerHandles();
  baseHeap = process.memoryUsage().heapUsed;
});

afterAll(async () => {
  await shutdownSandbox();
});

describe("sandbox: request handling", () => {
  it("codeBlock takes the first js/python fence (unlabeled → javascript) and skips other languages", () => {
    expect(codeBlock("Here:\n```python\nprint(1)\n```\nand\n```js\nx\n```")).toEqual({ language: "python", code: "print(1)" });
    expect(codeBlock("```\nconsole.log(2)\n```")).toEqual({ language: "javascript", code: "console.log(2)" });
    expect(codeBlock("```json\n{}\n```\n```py\nx = 1\ny = 2\n```")).toEqual({ language: "python", code: "x = 1\ny = 2" });
    expect(codeBlock("```javascript\r\nlet a = 1;\r\n```")).toEqual({ language: "javascript", code: "let a = 1;" });
    expect(codeBlock("no code here")).toBeNull();
    expect(codeBlock("```bash\nls\n```")).toBeNull();
  });

  it("invalid requests are results, not exceptions", async () => {
    const big = await runInSandbox({ language: "javascript", code: "x".repeat(100 * 1024 + 1) });
    expect(big).toMatchObject({ ok: false, exitCode: 125, error: { kind: "unavailable" } });
    expect(big.error?.message).toMatch(/invalid sandbox request: code: code is longer than 102400 bytes/);
    const slow = await runInSandbox({ language: "python", code: "1", timeoutMs: 60_000 });
    expect(slow.error?.message).toMatch(/invalid sandbox request: timeoutMs/);
    const lang = await runInSandbox({ language: "ruby" as Language, code: "1" });
    expect(lang).toMatchObject({ ok: false, error: { kind: "unavailable" } });
    expect(sandboxStats().workers).toBe(0);
  });

  it("sandboxInfo names both engines", () => {
    expect(info.javascript).toMatch(/^quickjs-emscripten 0\.32\.\d+ \(wasm\)$/);
    // python is optional by design; here pyodide is installed and must load offline
    expect(info.python, info.reason).toMatch(/^pyodide 314\.\d+\.\d+/);
  });
});

describe("sandbox: javascript (QuickJS in wasm)", () => {
  it("normal run: stdout, stderr, return value, exit 0, duration", async () => {
    const r = await runInSandbox({
      language: "javascript",
      code: "console.log('sum', [1, 2, 3].reduce((a, b) => a + b)); console.info({ a: 1 }); console.warn('careful'); ({ total: 6, items: [1, 2, 3] })",
    });
    expect(r).toMatchObject({
      ok: true,
      exitCode: 0,
      stdout: 'sum 6\n{"a":1}\n',
      stderr: "careful\n",
      returnValue: { total: 6, items: [1, 2, 3] },
      truncated: false,
      error: null,
    });
    expect(r.engine).toBe(info.javascript);
    expect(r.durationMs).toBeGreaterThan(0);
    // promises settle (no timers exist), undefined → null
    expect((await runInSandbox({ language: "javascript", code: "(async () => { await null; return 'later'; })()" })).returnValue).toBe("later");
    expect((await runInSandbox({ language: "javascript", code: "let x = 1;" })).returnValue).toBeNull();
  });

  it("runtime error: exit 1, stderr and a FormatError-worthy message", async () => {
    const r = await runInSandbox({ language: "javascript", code: "console.log('before');\nfunction f() { throw new TypeError('boom'); }\nf();" });
    expect(r).toMatchObject({ ok: false, exitCode: 1, stdout: "before\n", error: { kind: "runtime", message: "TypeError: boom" } });
    expect(r.stderr).toContain("TypeError: boom");
    expect(r.stderr).toContain("main.js");
    const syntax = await runInSandbox({ language: "javascript", code: "let = ;" });
    expect(syntax).toMatchObject({ ok: false, exitCode: 1, error: { kind: "runtime" } });
    expect(syntax.error?.message).toMatch(/SyntaxError/);
    const deep = await runInSandbox({ language: "javascript", code: "function f() { return f(); } f()" });
    expect(deep).toMatchObject({ exitCode: 1, error: { kind: "runtime", message: "InternalError: stack overflow" } });
    await expectHealthy("javascript");
  });

  it("no file system: require, import('fs') and process are absent", async () => {
    const r = await runInSandbox({
      language: "javascript",
      code: "[typeof require, typeof process, typeof module, typeof Deno, console.log.constructor('return typeof process')()].join(',')",
    });
    expect(r.returnValue).toBe("undefined,undefined,undefined,undefined,undefined");
    const imp = await runInSandbox({ language: "javascript", code: "import('fs').then((fs) => fs.readFileSync('/etc/passwd', 'utf8'))" });
    expect(imp).toMatchObject({ ok: false, exitCode: 1, error: { kind: "runtime" } });
    expect(imp.error?.message).toMatch(/could not load module 'fs'/);
    expect(imp.stdout + imp.stderr).not.toContain("root:");
    await expectHealthy("javascript");
  });

  it("no network: fetch, XMLHttpRequest, WebSocket do not exist", async () => {
    const r = await runInSandbox({ language: "javascript", code: "[typeof fetch, typeof XMLHttpRequest, typeof WebSocket, typeof navigator].join(',')" });
    expect(r.returnValue).toBe("undefined,undefined,undefined,undefined");
    const call = await runInSandbox({ language: "javascript", code: "fetch('http://127.0.0.1:9/')" });
    expect(call).toMatchObject({ exitCode: 1, error: { kind: "runtime" } });
    expect(call.error?.message).toMatch(/ReferenceError: '?fetch'? is not defined/);
    await expectHealthy("javascript");
  });

  it("no processes: no process object, child_process cannot be loaded, globals are the language's own", async () => {
    const r = await runInSandbox({ language: "javascript", code: "import('child_process').then((cp) => cp.execSync('id'))" });
    expect(r).toMatchObject({ ok: false, exitCode: 1 });
    expect(r.error?.message).toMatch(/could not load module 'child_process'/);
    const globals = await runInSandbox({ language: "javascript", code: "Object.getOwnPropertyNames(globalThis)" });
    const names = globals.returnValue as string[];
    expect(names).toContain("console");
    for (const host of ["process", "require", "Buffer", "setTimeout", "fetch", "global", "queueMicrotask"]) expect(names).not.toContain(host);
    await expectHealthy("javascript");
  });

  // (a loop the timeout failed to stop would hang the test: vitest's own timeout fails it)
  it("an infinite loop is stopped by the timeout (exit 124)", async () => {
    const r = await runInSandbox({ language: "javascript", code: "console.log('spinning'); while (true) {}", timeoutMs: 1000 });
    // stopped by the 1000 ms limit it was given (the sandbox says which limit ended it)
    expect(r).toMatchObject({ ok: false, exitCode: 124, stdout: "spinning\n", error: { kind: "timeout", message: "timed out after 1000 ms" } });
    await expectHealthy("javascript");
  });

  it("memory bombs are stopped at the limit (exit 137) and the host heap is untouched", async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const arrays = await runInSandbox({ language: "javascript", code: "const a = []; for (;;) a.push(new Array(10000).fill(a.length));" });
    expect(arrays).toMatchObject({ ok: false, exitCode: 137, error: { kind: "memory" } });
    const strings = await runInSandbox({ language: "javascript", code: "const a = []; for (;;) a.push('x'.repeat(1000) + a.length);", memoryMb: 32 });
    expect(strings).toMatchObject({ ok: false, exitCode: 137, error: { kind: "memory" } });
    const huge = await runInSandbox({ language: "javascript", code: "'x'.repeat(2 ** 29).length" });
    expect(huge).toMatchObject({ ok: false, exitCode: 137, error: { kind: "memory" } });
    expect(process.memoryUsage().heapUsed).toBeLessThan(heapBefore + 32 * MiB);
    await expectHealthy("javascript");
  });

  it("huge output is cut at the cap (truncated, exit 125) and the run is stopped", async () => {
    const r = await runInSandbox({ language: "javascript", code: "for (let i = 0; ; i++) console.log('line ' + i + ' ' + 'x'.repeat(50));", maxOutputBytes: OUTPUT_CAP });
    expect(r).toMatchObject({ ok: false, exitCode: 125, truncated: true, error: { kind: "output_limit" } });
    expect(outputBytes(r)).toBeLessThanOrEqual(OUTPUT_CAP);
    expect(outputBytes(r)).toBeGreaterThan(OUTPUT_CAP - CUT_SLACK);
    expect(r.stdout.startsWith("line 0 xxxx")).toBe(true);
    // a return value larger than the cap comes back as cut JSON text
    const big = await runInSandbox({ language: "javascript", code: "Array.from({ length: 5000 }, (_, i) => i)", maxOutputBytes: 1024 });
    expect(big).toMatchObject({ ok: true, exitCode: 0, truncated: true });
    expect(big.returnValue).toBe(JSON.stringify(Array.from({ length: 5000 }, (_, i) => i)).slice(0, 1024));
    await expectHealthy("javascript");
  });

  it("parallel runs are isolated from each other", async () => {
    const rs = await Promise.all([1, 2, 3].map((n) => runInSandbox({ language: "javascript", code: `globalThis.shared = (globalThis.shared ?? 0) + ${n}; shared` })));
    expect(rs.map((r) => r.returnValue)).toEqual([1, 2, 3]);
    await expectHealthy("javascript");
  });
});

// a process per run: a cold Python start takes seconds on a busy machine
describe.runIf(info.python)("sandbox: python (CPython in wasm via pyodide)", { timeout: 120_000 }, () => {
  it("normal run: print → stdout, stderr, last expression → return value, exit 0 (cold start measured)", async () => {
    const t0 = Date.now();
    const r = await runInSandbox({
      language: "python",
      code: "import sys, json, math\nprint('sqrt', math.isqrt(49))\nprint('note', file=sys.stderr)\n{'total': sum([1, 2, 3]), 'ok': True, 'pi': round(math.pi, 2)}",
    });
    const wall = Date.now() - t0;
    expect(r, JSON.stringify(r)).toMatchObject({
      ok: true,
      exitCode: 0,
      stdout: "sqrt 7\n",
      stderr: "note\n",
      returnValue: { total: 6, ok: true, pi: 3.14 },
      error: null,
    });
    expect(r.engine).toMatch(/^pyodide 314\.\d+\.\d+ \/ CPython 3\.14\.\d+ \(wasm/);
    expect(r.durationMs).toBeGreaterThan(0);
    const stats = sandboxStats();
    console.info(`[sandbox] python cold start: full boot ${stats.bootMs.python.full} ms, first run wall ${wall} ms; memory image ${stats.pythonSnapshot}`);
    // non-JSON values come back as repr(); asyncio.run works on the sandbox's I/O-free loop; input() sees EOF
    const more = await runInSandbox({
      language: "python",
      code: "import asyncio\nclass A:\n    def __repr__(self): return 'A()'\nasync def main():\n    await asyncio.sleep(0.01)\n    return [A(), await asyncio.gather(asyncio.sleep(0, 'x'))]\nasyncio.run(main())",
    });
    expect(more).toMatchObject({ ok: true, returnValue: "[A(), ['x']]" });
    console.info(`[sandbox] python start from the memory image: ${sandboxStats().bootMs.python.snapshot} ms`);
  });

  it("runtime error: exit 1, traceback on stderr, FormatError-worthy message", async () => {
    const r = await runInSandbox({ language: "python", code: "print('before')\ndef f(x):\n    return 1 / x\nf(0)" });
    expect(r).toMatchObject({ ok: false, exitCode: 1, stdout: "before\n", error: { kind: "runtime", message: "ZeroDivisionError: division by zero" } });
    expect(r.stderr).toContain('File "main.py", line 4');
    expect(r.stderr).toContain("return 1 / x");
    expect(r.stderr).not.toContain("_pyodide");
    const syntax = await runInSandbox({ language: "python", code: "def f(:\n    pass" });
    expect(syntax).toMatchObject({ exitCode: 1, error: { kind: "runtime" } });
    expect(syntax.error?.message).toMatch(/^SyntaxError/);
    const exit = await runInSandbox({ language: "python", code: "import sys\nsys.exit(3)" });
    expect(exit).toMatchObject({ ok: false, exitCode: 1, error: { kind: "runtime", message: "SystemExit: 3" } });
    await expectHealthy("python");
  });

  it("file system: host files are not there; writes stay in the in-memory FS", async () => {
    const marker = path.join(os.tmpdir(), `sandbox-probe-${process.pid}-${Date.now()}`);
    const repoFile = path.resolve("package.json");
    const r = await runInSandbox({
      language: "python",
      code: [
        "import os",
        "out = {}",
        "for p in ['/etc/passwd', " + JSON.stringify(repoFile) + "]:",
        "    try:",
        "        out[p] = open(p).read()[:40]",
        "    except OSError as e:",
        "        out[p] = type(e).__name__",
        "with open(" + JSON.stringify(marker) + ", 'w') as f:",
        "    f.write('inside')",
        "out['root'] = sorted(os.listdir('/'))",
        "out['home'] = sorted(os.listdir('/home'))",
        "out['cwd'] = os.getcwd()",
        "out['env'] = sorted(os.environ)",
        "out",
      ].join("\n"),
    });
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true, exitCode: 0 });
    const out = r.returnValue as Record<string, unknown>;
    expect(out["/etc/passwd"]).toBe("FileNotFoundError");
    expect(out[repoFile]).toBe("FileNotFoundError");
    const root = out.root as string[];
    expect(root).toEqual(expect.arrayContaining(["tmp", "home", "dev", "lib"]));
    for (const host of ["etc", "usr", "work", "root", "var", "node_modules", "app", "package.json", path.basename(process.cwd())]) expect(root).not.toContain(host);
    expect(out.home).toEqual(["pyodide", "web_user"]);
    expect(out.env).not.toEqual(expect.arrayContaining(["PATH_TO_SECRET", "DATABASE_URL", "OPENAI_API_KEY"]));
    expect(fs.existsSync(marker)).toBe(false);
    await expectHealthy("python");
  });

  it("network: urllib and raw sockets cannot reach a listening host port", async () => {
    let connections = 0;
    const server = net.createServer((s) => {
      connections++;
      s.destroy();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as net.AddressInfo).port;
    try {
      // one process for both (a Python child costs a boot): the raw socket's exception is caught and written to
      // stderr, the same line the run would report as its error; urllib's ends the run
      const r = await runInSandbox({
        language: "python",
        code: [
          "import socket, sys, traceback, urllib.request",
          "try:",
          "    s = socket.socket()",
          "    s.settimeout(2)",
          `    s.connect(('127.0.0.1', ${port}))`,
          "    s.send(b'GET / HTTP/1.0\\r\\n\\r\\n')",
          "    s.recv(10)",
          "except BaseException as e:",
          "    print('socket:', traceback.format_exception_only(type(e), e)[-1].strip(), file=sys.stderr)",
          "else:",
          "    print('socket: connected', file=sys.stderr)",
          `urllib.request.urlopen('http://127.0.0.1:${port}/', timeout=2).read()`,
        ].join("\n"),
      });
      expect(r).toMatchObject({ ok: false, exitCode: 1, error: { kind: "runtime" } });
      expect(r.error?.message).toMatch(/URLError|unreachable|refused/i);
      const sock = /^socket: (.*)$/m.exec(r.stderr)?.[1];
      expect(sock, r.stderr).toMatch(/OSError|unreachable|refused/i);
      expect(connections).toBe(0);
    } finally {
      server.close();
    }
    await expectHealthy("python");
  });

  it("processes: os.system, subprocess and ctypes fail", async () => {
    // one process for all four (a Python child costs a boot): each attempt's exception is written to stderr as the
    // line the run would report as its error; the last one (os.system) ends the run
    const r = await runInSandbox({
      language: "python",
      code: [
        "import sys, traceback",
        "def attempt(name, src):",
        "    try:",
        "        exec(src, {})",
        "    except BaseException as e:",
        "        print(name + ':', traceback.format_exception_only(type(e), e)[-1].strip(), file=sys.stderr)",
        "    else:",
        "        print(name + ': OK', file=sys.stderr)",
        "attempt('subprocess', \"import subprocess\\nsubprocess.run(['ls', '/'], capture_output=True).stdout\")",
        "attempt('js', 'import js')",
        "attempt('ctypes', 'import ctypes')",
        "import os",
        "os.system('ls /')",
      ].join("\n"),
    });
    const line = (name: string) => new RegExp(`^${name}: (.*)$`, "m").exec(r.stderr)?.[1];
    expect(r).toMatchObject({ ok: false, exitCode: 1, stdout: "", error: { kind: "runtime" } });
    expect(r.error?.message).toMatch(/OSError: .*processes are not available/);
    expect(line("subprocess"), r.stderr).toMatch(/OSError: .*does not support processes/);
    expect(line("js"), r.stderr).toMatch(/ModuleNotFoundError: module 'js' is not available in the sandbox/);
    expect(line("ctypes"), r.stderr).toMatch(/ModuleNotFoundError/);
    await expectHealthy("python");
  });

  it("escape attempts past the Python layer meet the locked-down worker (no code generation, no node builtins)", async () => {
    const marker = path.join(os.tmpdir(), `sandbox-escape-${process.pid}-${Date.now()}`);
    const code = [
      "import sys",
      "sys.meta_path[:] = [f for f in sys.meta_path if getattr(f, '__name__', '') != '_SandboxBlocker']",
      "for k in [k for k, v in list(sys.modules.items()) if v is None]:",
      "    del sys.modules[k]",
      "import pyodide_js as P",
      "from pyodide.ffi import to_js",
      "res = {}",
      "def attempt(name, fn):",
      "    try:",
      "        res[name] = 'OK ' + repr(fn())[:60]",
      "    except BaseException as e:",
      "        res[name] = type(e).__name__ + ': ' + str(e)[:80]",
      "attempt('function', lambda: P.constructor.constructor('return process')())",
      "attempt('object_function', lambda: P.FS.mkdir.constructor('return 1')())",
      "attempt('typed_array_function', lambda: P._module.HEAP8.constructor.constructor('return 1')())",
      "attempt('mount', lambda: (__import__('os').makedirs('/mnt/h', exist_ok=True), P.FS.mount(P.FS.filesystems.MEMFS, to_js({}), '/mnt/h'), P._module.NODEFS))",
      "attempt('loadPackage', lambda: P.loadPackage('http://127.0.0.1:9/x.whl'))",
      "attempt('js_globals', lambda: list(__import__('js').object_keys()))",
      "print(res)",
      "res",
    ].join("\n");
    const r = await runInSandbox({ language: "python", code });
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true, exitCode: 0 });
    const res = r.returnValue as Record<string, string>;
    expect(res.function).toMatch(/EvalError: Function is not available in the sandbox/);
    expect(res.object_function).toMatch(/EvalError: Function is not available/);
    expect(res.typed_array_function).toMatch(/EvalError: Function is not available/);
    expect(res.mount).toMatch(/AttributeError|not available/); // NODEFS was removed
    expect(res.loadPackage).toMatch(/pyodide.loadPackage is not available/);
    expect(res.js_globals).toBe("OK []");
    // ctypes → emscripten's system() → require('child_process'): refused, the interpreter dies, the host does not
    const sys = await runInSandbox({
      language: "python",
      code: `import sys\nsys.meta_path.pop(0)\nsys.modules.pop('ctypes', None)\nsys.modules.pop('_ctypes', None)\nimport ctypes\nctypes.CDLL(None).system(b"touch ${marker}")`,
    });
    expect(sys).toMatchObject({ ok: false, exitCode: 125, error: { kind: "crash" } });
    expect(sys.error?.message).toMatch(/require is not available in the sandbox/);
    expect(fs.existsSync(marker)).toBe(false);
    await expectHealthy("python");
  });

  it("static audit: no host capability is reachable from pyodide's JavaScript objects after lockdown", async () => {
    const audit = await auditSandboxChild("python");
    expect(audit.visited).toBeGreaterThan(AUDIT_AT_LEAST);
    expect(audit.findings).toEqual([]);
  });

  it("an infinite loop is stopped by the timeout (exit 124)", async () => {
    const r = await runInSandbox({ language: "python", code: "print('spinning', flush=True)\nwhile True:\n    pass", timeoutMs: 1000 });
    expect(r).toMatchObject({ ok: false, exitCode: 124, stdout: "spinning\n", error: { kind: "timeout", message: "timed out after 1000 ms" } });
    // catching KeyboardInterrupt does not help: the worker is terminated after the grace period
    const stubborn = await runInSandbox({ language: "python", code: "while True:\n    try:\n        while True: pass\n    except BaseException:\n        pass", timeoutMs: 800 });
    expect(stubborn).toMatchObject({ ok: false, exitCode: 124, error: { kind: "timeout", message: "timed out after 800 ms" } });
    await expectHealthy("python");
  });

  it("memory bombs end in a clean MemoryError (exit 137) and the host heap is untouched", async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const big = await runInSandbox({ language: "python", code: "x = ' ' * 10**9" });
    expect(big).toMatchObject({ ok: false, exitCode: 137, error: { kind: "memory" } });
    const grow = await runInSandbox({ language: "python", code: "x = []\nwhile True:\n    x.append(' ' * 1000)", memoryMb: 32 });
    expect(grow).toMatchObject({ ok: false, exitCode: 137, error: { kind: "memory" } });
    expect(grow.error?.message).toMatch(/MemoryError/);
    // 10**10 bytes cannot even be expressed on wasm32: a clean OverflowError before any allocation
    const huge = await runInSandbox({ language: "python", code: "x = ' ' * 10**10" });
    expect(huge).toMatchObject({ ok: false, exitCode: 1, error: { kind: "runtime" } });
    expect(huge.error?.message).toMatch(/OverflowError/);
    expect(process.memoryUsage().heapUsed).toBeLessThan(heapBefore + 32 * MiB);
    await expectHealthy("python");
  });

  it("huge output is cut at the cap (truncated, exit 125) and the run is stopped", async () => {
    const r = await runInSandbox({ language: "python", code: "i = 0\nwhile True:\n    print('line', i, 'é' * 20)\n    i += 1", maxOutputBytes: OUTPUT_CAP });
    expect(r).toMatchObject({ ok: false, exitCode: 125, truncated: true, error: { kind: "output_limit" } });
    expect(outputBytes(r)).toBeLessThanOrEqual(OUTPUT_CAP);
    expect(outputBytes(r)).toBeGreaterThan(OUTPUT_CAP - CUT_SLACK);
    expect(r.stdout.startsWith("line 0 éééé")).toBe(true);
    expect(r.stdout).not.toContain("\uFFFD");
    await expectHealthy("python");
  });

  it("a booted interpreter is kept ready when prewarming is on; shutdown leaves no worker", async () => {
    configureSandbox({ prewarmPython: true });
    try {
      expect((await runInSandbox({ language: "python", code: "1" })).returnValue).toBe(1);
      expect(await waitFor(() => sandboxStats().spares === 1, 1000)).toBe(true);
      // the spare is taken by the next run (and replaced once it finishes)
      const t0 = Date.now();
      const r = await runInSandbox({ language: "python", code: "2" });
      expect(r.returnValue).toBe(2);
      console.info(`[sandbox] python run on a prewarmed worker: ${Date.now() - t0} ms wall`);
    } finally {
      configureSandbox({ prewarmPython: false });
      await shutdownSandbox();
    }
    expect(sandboxStats()).toMatchObject({ workers: 0, spares: 0, running: 0 });
    expect(await waitFor(() => workerHandles() <= baseHandles)).toBe(true);
  });
});
