// lib/sandbox as a child process: the worst guest ends only its own process, what
// comes back is bounded, Node's permission model refuses fs writes / reads outside the engine / processes /
// workers / addons inside the child even with the JavaScript realm in hand, and the escapes a guest can try leave
// no effect on the host.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configureSandbox, runInSandbox as sandboxRun, SANDBOX_LIMITS, sandboxInfo, sandboxNodeArgs, sandboxReadPaths, sandboxStats, shutdownSandbox, type Language } from "../lib/sandbox";

// a busy machine must not turn a test about memory or output into a timeout: the longest run time
// unless a test sets its own
const runInSandbox: typeof sandboxRun = (req) => sandboxRun({ timeoutMs: SANDBOX_LIMITS.timeoutMs.max, ...req });

const MiB = 1024 * 1024;
const info = await sandboxInfo();
const children = () => process.getActiveResourcesInfo().filter((r) => r === "ProcessWrap").length;
let baseChildren = 0;
const markers: string[] = [];
function marker(name: string): string {
  const p = path.join(os.tmpdir(), `sandbox-${name}-${process.pid}-${Date.now()}`);
  markers.push(p);
  return p;
}

async function expectHealthy(language: Language): Promise<void> {
  const code = language === "python" ? "print('ok')\n6 * 7" : "console.log('ok'); 6 * 7";
  const r = await runInSandbox({ language, code });
  expect(r, JSON.stringify(r)).toMatchObject({ ok: true, exitCode: 0, stdout: "ok\n", returnValue: 42, truncated: false });
  expect(sandboxStats()).toMatchObject({ workers: 0, running: 0 });
  const until = Date.now() + 3000;
  while (children() > baseChildren && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  expect(children()).toBeLessThanOrEqual(baseChildren);
}

/** The Python guest takes out the import blocker and the None entries of sys.modules. */
const UNBLOCK = [
  "import sys",
  "sys.meta_path[:] = [f for f in sys.meta_path if getattr(f, '__name__', '') != '_SandboxBlocker']",
  "for k in [k for k, v in list(sys.modules.items()) if v is None]:",
  "    del sys.modules[k]",
].join("\n");

beforeAll(() => {
  configureSandbox({ prewarmPython: false, prewarmJavascript: false, unsafeSkipLockdownForTests: false });
  baseChildren = children();
});

afterAll(async () => {
  configureSandbox({ unsafeSkipLockdownForTests: false });
  await shutdownSandbox();
  for (const m of markers) fs.rmSync(m, { force: true });
});

describe("sandbox child process: the guest cannot take the host down", () => {
  it("the issue's 50 MB error message: the host lives, the message comes back cut and flagged", async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const r = await runInSandbox({ language: "javascript", code: "throw new Error('A'.repeat(5e7))", memoryMb: 256, timeoutMs: 20_000 });
    expect(r, JSON.stringify(r).slice(0, 500)).toMatchObject({ ok: false, exitCode: 1, truncated: true, error: { kind: "runtime" } });
    expect(r.error!.message).toMatch(/^Error: A{4096}… \(49995904 more characters\)$/);
    expect(r.stderr.startsWith("Error: AAAA")).toBe(true);
    expect(Buffer.byteLength(r.stderr)).toBeLessThanOrEqual(65_536);
    expect(process.memoryUsage().heapUsed).toBeLessThan(heapBefore + 32 * MiB);
    await expectHealthy("javascript");
  }, 90_000);

  it("a 30 MB console.log ends cut at the cap with the truncation flag (not exit 0 with nothing)", async () => {
    const r = await runInSandbox({ language: "javascript", code: "console.log('x'.repeat(3e7)); 'after'", maxOutputBytes: 65_536 });
    expect(r, JSON.stringify(r).slice(0, 300)).toMatchObject({ ok: false, exitCode: 125, truncated: true, error: { kind: "output_limit" } });
    expect(r.stdout).toBe("x".repeat(65_536));
    // several arguments, no joined copy: the first is cut, the rest never copied
    const many = await runInSandbox({ language: "javascript", code: "const s = 'y'.repeat(2e7); console.log(s, s, s)", memoryMb: 64, maxOutputBytes: 4096 });
    expect(many).toMatchObject({ exitCode: 125, truncated: true, stdout: "y".repeat(4096) });
    // a return value larger than the cap is cut inside the guest
    const big = await runInSandbox({ language: "javascript", code: "'z'.repeat(3e7)", memoryMb: 256, maxOutputBytes: 1024 });
    expect(big).toMatchObject({ ok: true, exitCode: 0, truncated: true });
    expect(big.returnValue).toBe(`"${"z".repeat(1023)}`);
    await expectHealthy("javascript");
  }, 90_000);
});

describe.runIf(info.python)("sandbox child process: python reports", { timeout: 120_000 }, () => {
  it("a 30 MB print ends cut at the cap with the truncation flag", async () => {
    const r = await runInSandbox({ language: "python", code: "print('x' * 30_000_000)\n'after'", maxOutputBytes: 65_536 });
    expect(r, JSON.stringify(r).slice(0, 300)).toMatchObject({ ok: false, exitCode: 125, truncated: true, error: { kind: "output_limit" } });
    expect(r.stdout).toBe("x".repeat(65_536));
    // a 50 MB exception message leaves the interpreter cut
    const e = await runInSandbox({ language: "python", code: "raise ValueError('A' * 50_000_000)", memoryMb: 256 });
    expect(e).toMatchObject({ ok: false, exitCode: 1, truncated: true, error: { kind: "runtime" } });
    expect(e.error!.message).toMatch(/^ValueError: A{4084}… \(\d+ more characters\)$/);
  });

  it("a stack overflow is a RecursionError (exit 1), not a memory error", async () => {
    // one process for both (a Python child costs a boot): the plain RecursionError is caught and its line written
    // to stderr (the line the run would report as its error); then, past the recursion limit, the native stack
    // runs out first
    const deep = await runInSandbox({
      language: "python",
      code: [
        "import sys, traceback",
        "def f(n):",
        "    return f(n + 1)",
        "try:",
        "    f(0)",
        "except BaseException as e:",
        "    print('plain:', traceback.format_exception_only(type(e), e)[-1].strip(), file=sys.stderr)",
        "sys.setrecursionlimit(10**6)",
        "f(0)",
      ].join("\n"),
    });
    expect(/^plain: (.*)$/m.exec(deep.stderr)?.[1], deep.stderr.slice(0, 400)).toBe("RecursionError: maximum recursion depth exceeded");
    expect(deep, JSON.stringify(deep).slice(0, 400)).toMatchObject({ ok: false, exitCode: 1, error: { kind: "runtime" } });
    expect(deep.error!.message).toMatch(/^RecursionError: stack overflow/);
    await expectHealthy("python");
  });

  it("files in the in-memory file system count against the memory limit (ENOSPC past it)", async () => {
    const code = "n = 0\ntry:\n    while True:\n        with open(f'/tmp/f{n}', 'wb') as f:\n            f.write(b'x' * 4_000_000)\n        n += 1\nexcept OSError as e:\n    err = e.errno\nimport os, errno\nfor i in range(n):\n    os.remove(f'/tmp/f{i}')\nwith open('/tmp/again', 'wb') as f:\n    f.write(b'y' * 4_000_000)\n[n, err == errno.ENOSPC]";
    const r = await runInSandbox({ language: "python", code, memoryMb: 32 });
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true, exitCode: 0 });
    const [files, enospc] = r.returnValue as [number, boolean];
    expect(enospc).toBe(true);
    expect(files).toBeGreaterThanOrEqual(6);
    expect(files).toBeLessThanOrEqual(8);
  });

  it("the worst guest (Node's realm in hand, no lockdown) that exhausts the child's JavaScript heap ends only its process: exit 137", async () => {
    configureSandbox({ unsafeSkipLockdownForTests: true });
    try {
      const code = [UNBLOCK, "import pyodide_js as P", "P.constructor.constructor('const a = []; for (;;) a.push(new Array(100000).fill(1.5));')()"].join("\n");
      const r = await runInSandbox({ language: "python", code, memoryMb: 256, timeoutMs: 30_000 });
      expect(r, JSON.stringify(r).slice(0, 400)).toMatchObject({ ok: false, exitCode: 137, error: { kind: "memory" } });
      expect(r.error!.message).toMatch(/^guest code ran out of memory \(limit 256 MB\)/);
    } finally {
      configureSandbox({ unsafeSkipLockdownForTests: false });
    }
    await expectHealthy("python");
  });
});

describe("Node's permission model inside the child (the same command line, no lockdown)", () => {
  // a probe run with exactly the flags the sandbox uses; it reports what each attempt did
  const probe = (language: Language, target: string) => `
    const fs = process.getBuiltinModule("fs"), cp = process.getBuiltinModule("child_process"), wt = process.getBuiltinModule("worker_threads");
    const out = {};
    const attempt = (name, fn) => { try { out[name] = "OK " + String(fn()).slice(0, 40); } catch (e) { out[name] = e.code || e.message; } };
    attempt("write", () => fs.writeFileSync(${JSON.stringify(target)}, "escaped"));
    attempt("read_etc", () => fs.readFileSync("/etc/passwd", "utf8"));
    attempt("read_repo", () => fs.readFileSync(${JSON.stringify(path.resolve("package.json"))}, "utf8"));
    attempt("read_engine", () => fs.readFileSync(${JSON.stringify(path.join(sandboxReadPaths(language)[1], "package.json"))}, "utf8").length);
    attempt("spawn", () => cp.spawnSync("/bin/sh", ["-c", "touch ${target}"]).status);
    attempt("exec", () => cp.execSync("touch ${target}"));
    attempt("worker", () => new wt.Worker("process.exit(0)", { eval: true }));
    attempt("addon", () => process.dlopen({ exports: {} }, "/usr/lib/x86_64-linux-gnu/libc.so.6"));
    out.has = { write: process.permission.has("fs.write"), child: process.permission.has("child"), worker: process.permission.has("worker"), etc: process.permission.has("fs.read", "/etc/passwd") };
    process.stdout.write(JSON.stringify(out));
  `;

  for (const language of ["javascript", "python"] as Language[]) {
    it(`${language}: fs writes, reads outside the engine, processes, workers and addons are refused`, () => {
      const target = marker(`perm-${language}`);
      const args = sandboxNodeArgs(language);
      expect(args[0]).toMatch(/^--(experimental-)?permission$/);
      expect(args.filter((a) => a.startsWith("--allow-"))).toEqual(sandboxReadPaths(language).map((p) => `--allow-fs-read=${p}`));
      const r = spawnSync(process.execPath, [...args, "-e", probe(language, target)], { env: {} as NodeJS.ProcessEnv, encoding: "utf8", timeout: 20_000 });
      const out = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(out).toMatchObject({
        write: "ERR_ACCESS_DENIED",
        read_etc: "ERR_ACCESS_DENIED",
        read_repo: "ERR_ACCESS_DENIED",
        spawn: "ERR_ACCESS_DENIED",
        exec: "ERR_ACCESS_DENIED",
        worker: "ERR_ACCESS_DENIED",
        has: { write: false, child: false, worker: false, etc: false },
      });
      expect(String(out.addon)).toMatch(/ERR_DLOPEN_DISABLED|ERR_ACCESS_DENIED|addons/i);
      expect(String(out.read_engine)).toMatch(/^OK \d+/);
      expect(fs.existsSync(target)).toBe(false);
    });
  }
});

describe.runIf(info.python)("escapes: the Python import blocker removed", { timeout: 120_000 }, () => {
  it("with the lockdown: js is an empty object, pyodide_js gives no code generation, ctypes cannot start a process", async () => {
    const target = marker("py-escape");
    const code = [
      UNBLOCK,
      "import js, pyodide_js as P",
      "res = {}",
      "def attempt(name, fn):",
      "    try:",
      "        res[name] = 'OK ' + repr(fn())[:60]",
      "    except BaseException as e:",
      "        res[name] = type(e).__name__ + ': ' + str(e)[:80]",
      "attempt('js_process', lambda: js.process.getBuiltinModule('fs'))",
      "attempt('js_keys', lambda: list(js.object_keys()))",
      "attempt('function', lambda: P.constructor.constructor('return process')())",
      `attempt('open_host', lambda: open(${JSON.stringify(path.resolve("package.json"))}).read())`,
      // one process for both parts (a Python child costs a boot): the attempts' results first, then ctypes, which
      // ends the interpreter
      "import json",
      "print(json.dumps(res), flush=True)",
      "import ctypes",
      `ctypes.CDLL(None).system(b"touch ${target}")`,
    ].join("\n");
    const r = await runInSandbox({ language: "python", code });
    const res = JSON.parse(r.stdout.split("\n")[0]) as Record<string, string>;
    expect(res.js_process).toMatch(/^AttributeError/);
    expect(res.js_keys).toBe("OK []");
    expect(res.function).toMatch(/EvalError: Function is not available in the sandbox/);
    expect(res.open_host).toMatch(/^FileNotFoundError/);
    expect(r, JSON.stringify(r)).toMatchObject({ ok: false });
    expect(fs.existsSync(target)).toBe(false);
    await expectHealthy("python");
  });

  it("without the lockdown (the guest holds Node's realm): the permission model still refuses every host effect", async () => {
    configureSandbox({ unsafeSkipLockdownForTests: true });
    try {
      const target = marker("py-realm");
      const code = [
        UNBLOCK,
        "import pyodide_js as P",
        "proc = P.constructor.constructor('return process')()",
        "fs = proc.getBuiltinModule('fs')",
        "cp = proc.getBuiltinModule('child_process')",
        "wt = proc.getBuiltinModule('worker_threads')",
        "res = {'realm': proc.version}",
        "def attempt(name, fn):",
        "    try:",
        "        res[name] = 'OK ' + repr(fn())[:60]",
        "    except BaseException as e:",
        "        res[name] = str(e)[:120]",
        `attempt('write', lambda: fs.writeFileSync(${JSON.stringify(target)}, 'escaped'))`,
        "attempt('read_etc', lambda: fs.readFileSync('/etc/passwd', 'utf8'))",
        "from pyodide.ffi import to_js",
        "js_eval = P.constructor.constructor('return { eval: true }')",
        `attempt('spawn', lambda: cp.spawnSync('/bin/sh', to_js(['-c', 'touch ${target}'])).status)`,
        `attempt('exec', lambda: cp.execSync('touch ${target}'))`,
        "attempt('worker', lambda: wt.Worker.new('1', js_eval()))",
        "attempt('addon', lambda: proc.dlopen(js_eval(), '/usr/lib/x86_64-linux-gnu/libc.so.6'))",
        "res",
      ].join("\n");
      const r = await runInSandbox({ language: "python", code });
      expect(r, JSON.stringify(r)).toMatchObject({ ok: true, exitCode: 0 });
      const res = r.returnValue as Record<string, string>;
      expect(res.realm).toMatch(/^v\d+/); // the guest really holds Node's process object here
      expect(res.addon).toMatch(/ERR_DLOPEN_DISABLED|addons|restricted/i);
      for (const k of ["write", "read_etc", "spawn", "exec", "worker"]) expect(res[k], k).toMatch(/Access to this API has been restricted|ERR_ACCESS_DENIED/);
      expect(fs.existsSync(target)).toBe(false);
    } finally {
      configureSandbox({ unsafeSkipLockdownForTests: false });
    }
  });

  it("what the parent reads back is bounded even when the guest writes the protocol itself", async () => {
    configureSandbox({ unsafeSkipLockdownForTests: true });
    try {
      // forged output frames far past the budget: the parent cuts at maxOutputBytes and flags it
      const forged = [
        UNBLOCK,
        "import pyodide_js as P",
        "fs = P.constructor.constructor('return process')().getBuiltinModule('fs')",
        "line = '{\"t\":\"out\",\"fd\":1,\"text\":\"' + 'f' * 100_000 + '\"}\\n'",
        "for i in range(50):",
        "    fs.writeSync(1, line)",
      ].join("\n");
      const r = await runInSandbox({ language: "python", code: forged, maxOutputBytes: 4096 });
      expect(r.truncated).toBe(true);
      expect(r.stdout).toBe("f".repeat(4096));
      // one endless line without a newline: the parent stops reading and kills the child
      const flood = [UNBLOCK, "import pyodide_js as P", "fs = P.constructor.constructor('return process')().getBuiltinModule('fs')", "chunk = 'g' * 1_000_000", "while True:", "    fs.writeSync(1, chunk)"].join("\n");
      const heapBefore = process.memoryUsage().heapUsed;
      const f = await runInSandbox({ language: "python", code: flood, timeoutMs: 20_000 });
      expect(f).toMatchObject({ ok: false, exitCode: 125, truncated: true, error: { kind: "crash" } });
      expect(f.error!.message).toMatch(/the sandbox process sent (a line longer than|more than)/);
      expect(process.memoryUsage().heapUsed).toBeLessThan(heapBefore + 64 * MiB);
    } finally {
      configureSandbox({ unsafeSkipLockdownForTests: false });
    }
    await expectHealthy("python");
  });
});

describe("escapes: JavaScript", () => {
  it("require, process, fs, child_process, worker_threads, fetch and the network are out of reach; no host effect", async () => {
    const target = marker("js-escape");
    const code = `
      const res = {};
      const attempt = async (name, fn) => { try { res[name] = "OK " + String(await fn()).slice(0, 40); } catch (e) { res[name] = String(e && e.message || e).slice(0, 80); } };
      await attempt("require", () => require("fs").writeFileSync(${JSON.stringify(target)}, "x"));
      await attempt("process", () => process.getBuiltinModule("child_process").execSync("touch ${target}"));
      await attempt("fs", () => import("fs").then((m) => m.writeFileSync(${JSON.stringify(target)}, "x")));
      await attempt("child_process", () => import("node:child_process").then((m) => m.execSync("touch ${target}")));
      await attempt("worker_threads", () => import("worker_threads").then((m) => new m.Worker("1", { eval: true })));
      await attempt("fetch", () => fetch("http://127.0.0.1:9/"));
      await attempt("constructor", () => (() => {}).constructor("return typeof process")());
      await attempt("std", () => import("std").then((m) => m.popen("touch ${target}", "r")));
      await attempt("os", () => import("os").then((m) => m.exec(["touch", ${JSON.stringify(target)}])));
      res;
    `;
    const r = await runInSandbox({ language: "javascript", code: `(async () => { ${code} return res; })()` });
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true, exitCode: 0 });
    const res = r.returnValue as Record<string, string>;
    expect(res.require).toMatch(/require.* is not defined/);
    expect(res.process).toMatch(/process.* is not defined/);
    for (const k of ["fs", "child_process", "worker_threads", "std", "os"]) expect(res[k], k).toMatch(/could not load module/);
    expect(res.fetch).toMatch(/fetch.* is not defined/);
    expect(res.constructor).toBe("OK undefined");
    expect(fs.existsSync(target)).toBe(false);
    await expectHealthy("javascript");
  });
});
