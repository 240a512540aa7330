// The conversation's stages (docs/guide/15-conversation-and-your-own-workflows.md) and the stage rules: valid and invalid moves, cooldown, the
// backward threshold, validators, keyword detection, tools per stage, hooks.
import { afterEach, describe, expect, it } from "vitest";
import { detectStage } from "../../../lib/flows/detect";
import type { Decision, FlowContext } from "../../../lib/flows/rules";
import { CONVERSATION } from "../machine";
import type { Runtime } from "../../../lib/runtime";
import type { ManualClock } from "../../../lib/engine/clock";
import type { HookEvent } from "../../../lib/engine/hooks";
import { workflowRuntime } from "../../../test/helpers";

let rt: (Runtime & { clock: ManualClock }) | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

async function start(task?: string) {
  rt = await workflowRuntime("conversation", { seedGuide: false });
  const { run } = await rt.engine.start("conversation", task ? { task } : {});
  return run.id;
}
const ctx = async (id: string) => (await rt!.engine.getRun(id)).context as FlowContext;
const stage = async (id: string) => (await rt!.engine.getRun(id)).state;
const last = async (id: string): Promise<Decision> => (await ctx(id)).decisions.at(-1)!;
const send = (id: string, e: Record<string, unknown>) => rt!.engine.send(id, e);
const later = (s = 2) => rt!.clock.advance(s * 1000);

describe("stage detection (the seed's keyword lists)", () => {
  it("scores stages by keywords found, with a confidence; ties prefer a valid next stage", () => {
    const d = detectStage("Let me read the config and look at the router", CONVERSATION.keywords!);
    expect(d.stage).toBe("READING");
    expect(d.scores[0]).toMatchObject({ stage: "READING", hits: ["read", "look at"], score: 1 });
    expect(d.confidence).toBe(1);
    const tie = detectStage("check it", CONVERSATION.keywords!, ["VERIFICATION"]);
    expect(tie.stage).toBe("VERIFICATION");
    expect(tie.confidence).toBeLessThan(0.5);
    expect(detectStage("hello there", CONVERSATION.keywords!)).toEqual({ scores: [], stage: null, confidence: 0 });
    // whole words only: "thread" is not "read", "prefix" is not "fix"
    expect(detectStage("the thread prefix", CONVERSATION.keywords!).stage).toBeNull();
  });
});

describe("conversation workflow", () => {
  it("starts in INITIAL with its tools; the task is scored like a message", async () => {
    const id = await start("What is the plan and the approach for this refactor?");
    expect(await stage(id)).toEqual(["PLANNING"]);
    const c = await ctx(id);
    expect(c.lastDetection).toMatchObject({ stage: "PLANNING", confidence: 1 });
    expect(c.decisions.at(-1)).toMatchObject({ accepted: true, by: "message", to: "PLANNING", from: ["INITIAL"] });
    const run = await rt!.engine.getRun(id);
    expect(run.output).toMatchObject({ stage: ["PLANNING"], tools: ["code_search", "overview", "read", "search"], next: ["READING", "ANALYSIS", "EXECUTION"] });
  });

  it("a valid move happens; an invalid one is refused with its reason and moves nothing", async () => {
    const id = await start();
    await later();
    await send(id, { type: "TRANSITION", to: "READING", confidence: 0.9 });
    expect(await stage(id)).toEqual(["READING"]);
    await later();
    await send(id, { type: "TRANSITION", to: "COMPLETION" });
    expect(await stage(id)).toEqual(["READING"]);
    expect(await last(id)).toMatchObject({ accepted: false, to: "COMPLETION", reason: "COMPLETION is not a valid next stage from READING (valid: ANALYSIS, EXECUTION, PLANNING)" });
    const rows = await rt!.store.transitions(id, 0, 100);
    expect(rows.at(-1)).toMatchObject({ from: ["READING"], to: ["READING"], event: "TRANSITION" });
  });

  it("cooldown: a second move within cooldown_seconds is refused, and allowed after it", async () => {
    const id = await start();
    await later();
    await send(id, { type: "TRANSITION", to: "PLANNING" });
    await later(0.4);
    await send(id, { type: "TRANSITION", to: "READING" });
    expect(await stage(id)).toEqual(["PLANNING"]);
    expect((await last(id)).reason).toBe("cooldown: 0.4 s since the last transition (needs 1 s)");
    await later(0.7);
    await send(id, { type: "TRANSITION", to: "READING" });
    expect(await stage(id)).toEqual(["READING"]);
  });

  it("backward threshold: READING → PLANNING needs confidence ≥ 0.8", async () => {
    const id = await start();
    await later();
    await send(id, { type: "TRANSITION", to: "READING" });
    await later();
    await send(id, { type: "TRANSITION", to: "PLANNING", confidence: 0.5 });
    expect(await stage(id)).toEqual(["READING"]);
    expect((await last(id)).reason).toBe("backward move READING → PLANNING needs confidence ≥ 0.8 (got 0.5)");
    await send(id, { type: "TRANSITION", to: "PLANNING", confidence: 0.85 });
    expect(await stage(id)).toEqual(["PLANNING"]);
  });

  it("validator veto: COMPLETION needs 3 tool calls; tools outside the stage are refused and do not count", async () => {
    const id = await start();
    await later();
    await send(id, { type: "TRANSITION", to: "EXECUTION" });
    await send(id, { type: "TOOL", name: "read" });
    expect((await ctx(id)).tools.at(-1)).toMatchObject({ name: "read", allowed: false, reason: "read is not allowed in EXECUTION (allowed: edit, git_commit, refactor, shell, write)" });
    await send(id, { type: "TOOL", name: "edit" });
    await later();
    await send(id, { type: "TRANSITION", to: "COMPLETION" });
    expect(await stage(id)).toEqual(["EXECUTION"]);
    expect((await last(id)).reason).toBe("Need at least 3 tool calls before COMPLETION (1 so far)");
    await send(id, { type: "TOOL", name: "shell" });
    await send(id, { type: "TOOL", name: "git_commit" });
    expect((await rt!.engine.getRun(id)).status).toBe("waiting"); // for the next message, move or tool call
    await send(id, { type: "TRANSITION", to: "COMPLETION" });
    const run = await rt!.engine.getRun(id);
    expect(run.state).toEqual(["COMPLETION"]);
    expect(run.status).toBe("completed");
  });

  it("messages drive the stages; a weak detection below the threshold moves nothing but is recorded", async () => {
    const id = await start();
    await later();
    await send(id, { type: "MESSAGE", text: "I will read the files and examine the tests first" });
    expect(await stage(id)).toEqual(["READING"]);
    await later();
    await send(id, { type: "MESSAGE", text: "Now implement the change and fix the bug" });
    expect(await stage(id)).toEqual(["EXECUTION"]);
    await later();
    await send(id, { type: "MESSAGE", text: "nothing in particular" });
    expect(await stage(id)).toEqual(["EXECUTION"]);
    expect((await ctx(id)).lastDetection).toMatchObject({ stage: null, scores: [] });
    await send(id, { type: "MESSAGE", text: "write, but also test, check, verify, confirm" });
    expect(await stage(id)).toEqual(["VERIFICATION"]);
  });

  it("rejects malformed events with a clear error", async () => {
    const id = await start();
    await expect(send(id, { type: "TRANSITION" })).rejects.toThrow(/invalid TRANSITION event: to/);
    await expect(send(id, { type: "MESSAGE", text: "  " })).rejects.toThrow(/write a message/);
    await expect(send(id, { type: "TRANSITION", to: "READING", confidence: 3 })).rejects.toThrow(/confidence/);
  });

  it("hooks: on_exit, on_transition, on_enter fire after each commit, matched by stage", async () => {
    const id = await start();
    const seen: string[] = [];
    const all: HookEvent[] = [];
    rt!.engine.hooks.onEnter("READING", (e) => void seen.push(`enter ${e.stage}`));
    rt!.engine.hooks.onExit("INITIAL", (e) => void seen.push(`exit ${e.stage}`));
    rt!.engine.hooks.onTransition((e) => void seen.push(`${e.from.join()} -> ${e.to.join()}`));
    rt!.engine.hooks.onAny((e) => void all.push(e));
    const sse: string[] = [];
    rt!.engine.bus.subscribe(id, (m) => m.type === "hook" && sse.push(m.hook));
    await later();
    await send(id, { type: "TRANSITION", to: "READING" });
    expect(seen).toEqual(["exit INITIAL", "INITIAL -> READING", "enter READING"]);
    expect(all.map((e) => e.hook)).toEqual(["on_exit", "on_transition", "on_enter"]);
    expect(sse).toEqual(["on_exit", "on_transition", "on_enter"]);
    expect(all[1]).toMatchObject({ runId: id, workflow: "conversation", event: "TRANSITION", stage: null });
  });
});

describe("the guide's stage table is the machine's", () => {
  it("workflows/conversation/guide.md lists each stage with the config's tools, keywords and next stages", async () => {
    const fs = await import("node:fs");
    const text = fs.readFileSync(new URL("../guide.md", import.meta.url), "utf8");
    const rows = new Map(
      text
        .split("\n")
        .filter((l) => /^\| [A-Z]+ \|/.test(l))
        .map((l) => l.split("|").slice(1, -1).map((c) => c.trim()))
        .map(([stage, tools, keywords, next]) => [stage!, { tools: tools!, keywords: keywords!, next: next! }]),
    );
    expect([...rows.keys()]).toEqual(CONVERSATION.stages);
    for (const s of CONVERSATION.stages) {
      const row = rows.get(s)!;
      expect(row.tools.split(", ")).toEqual(CONVERSATION.stage_tools![s]);
      const words = CONVERSATION.keywords![s];
      if (words) expect(row.keywords.split(", ")).toEqual(words);
      const next = CONVERSATION.transitions[s]!;
      expect(next.length ? row.next.split(", ") : []).toEqual(next);
    }
  });
});
