// What a run is called in lists, how long ago things happened, and a short id opening its run.
import { afterEach, describe, expect, it } from "vitest";
import { clip, formatAgo } from "../lib/format";
import { runName } from "../lib/machines/run-name";
import { findWorkflow } from "../lib/machines/registry";
import { runIdByPrefix } from "../lib/api/runs";
import { inState, loopRuntime } from "./helpers";

let rt: Awaited<ReturnType<typeof loopRuntime>> | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

describe("run names", () => {
  it("uses the input's likely text field, clipped, or the workflow's own runName", () => {
    expect(runName(undefined, { input: { topic: "How do durable engines recover?", config: { x: 1 } } })).toBe("How do durable engines recover?");
    expect(runName(undefined, { input: { config: { a: 1 }, query: "what is  the\ncache TTL" } })).toBe("what is the cache TTL");
    // only fields that say what a run is about name it (not {"who": "ana"}, not any nested text)
    expect(runName(undefined, { input: { nested: { note: "deep text" } } })).toBeNull();
    expect(runName(undefined, { input: { n: 1 } })).toBeNull();
    expect(runName(undefined, { input: { request: "x".repeat(200) } })!.length).toBe(80);
    // the name kept with the run comes first
    expect(runName(undefined, { input: { request: "from input" }, name: "given name" })).toBe("given name");
    const loop = findWorkflow("loop");
    // a long-lived run of the loop fixture is named by the request it started with, whatever cycle it is in
    expect(runName(loop, { input: { request: "first" }, context: { request: "current request", last: null } })).toBe("first");
    expect(runName(loop, { input: { request: "from input" }, context: null })).toBe("from input");
  });

  it("says how long ago, in words", () => {
    const now = Date.parse("2026-11-25T12:00:00Z");
    expect(formatAgo("2026-11-25T11:59:58Z", now)).toBe("just now");
    expect(formatAgo("2026-11-25T11:59:18Z", now)).toBe("42 s ago");
    expect(formatAgo("2026-11-25T11:57:00Z", now)).toBe("3 min ago");
    expect(formatAgo("2026-11-25T07:00:00Z", now)).toBe("5 h ago");
    expect(formatAgo("2026-11-22T12:00:00Z", now)).toBe("3 d ago");
    expect(formatAgo("2026-11-25T12:03:00Z", now)).toBe("in 3 min");
    expect(formatAgo(null, now)).toBe("—");
    expect(clip("a  b\n c", 80)).toBe("a b c");
  });

  it("finds a run by the first characters of its id when they name one run", async () => {
    rt = await loopRuntime();
    const { run } = await rt.engine.start("loop", { request: "Explain keyset pagination" });
    await rt.engine.waitFor(run.id, inState("REVIEW"));
    expect(await runIdByPrefix(rt, run.id.slice(0, 8))).toBe(run.id);
    expect(await runIdByPrefix(rt, run.id)).toBe(run.id);
    expect(await runIdByPrefix(rt, "zzzzzzzz")).toBeNull();
    expect(await runIdByPrefix(rt, "ab")).toBeNull(); // too short to mean one run
    const other = run.id.startsWith("0") ? "1" : "0";
    expect(await runIdByPrefix(rt, other.repeat(8))).toBeNull();
  });
});
