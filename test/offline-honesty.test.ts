// The offline engine never claims what it did not do: no coverage score presented as quality,
// prose quoted as findings (never commands or code), a short reply to small talk that says how to
// connect a model, and no tokens for work no model did. (Each workflow's offline steps are held to
// the same in its own folder: workflows/<id>/test/offline-honesty.test.ts.)
import { describe, expect, it } from "vitest";
import { isSmallTalk, OfflineModel, SMALL_TALK_REPLY } from "../lib/llm/offline";
import { isProseSentence, withoutCode } from "../lib/llm/prose";

/** a brief answer: a couple of sentences, not an essay */
const BRIEF_REPLY_CHARS = 400;
const GUIDE = [
  "Start a run with the REST API:",
  "",
  "```bash",
  "curl -s localhost:3000/api/runs -H 'content-type: application/json' \\",
  "  -d '{\"workflow\":\"loop\",\"input\":{\"request\":\"hi\"}}'",
  "```",
  "",
  "A run survives a restart because every transition is committed to the database before its effects start.",
  "",
  "    curl -s localhost:3000/api/runs/$RUN/events -d '{}'",
  "",
  "After a crash the engine reloads each running run from its last committed snapshot and restarts its pending effects.",
].join("\n");

describe("prose, not commands", () => {
  it("drops fenced and indented code, and refuses commands as sentences", () => {
    const prose = withoutCode(GUIDE);
    expect(prose).not.toMatch(/curl|```/);
    expect(prose).toContain("A run survives a restart");
    expect(isProseSentence("curl -s localhost:3000/api/runs -H 'content-type: application/json' \\ -d '{}'")).toBe(false);
    expect(isProseSentence("```bash curl -s localhost:3000/api/runs")).toBe(false);
    expect(isProseSentence('{"workflow":"loop","input":{}}')).toBe(false);
    expect(isProseSentence("A run survives a restart because every transition is committed first.")).toBe(true);
  });
});

describe("offline answers (lib/llm/offline)", () => {
  const model = new OfflineModel();

  it("says what was done (quoted from N passages that share words), with no coverage score and no tokens", async () => {
    const out = await model.generate({ purpose: "answer", prompt: "How does a run survive a restart after a crash?", passages: [{ id: "g1", title: "Guide", text: GUIDE, score: 3 }] });
    expect(out.text).not.toMatch(/Coverage|key terms of the request are addressed/);
    expect(out.text).toMatch(/quoted from 1 passage that shares words with the question; no model read it/);
    expect(out.text).toMatch(/A run survives a restart|After a crash the engine reloads/);
    expect(out.text).not.toMatch(/curl|```/);
    expect(out.usage).toEqual({ promptTokens: 0, completionTokens: 0, estimated: false });
  });

  it("answers small talk briefly: no model is configured, and how to add one", async () => {
    for (const hi of ["Hi!", "hello", "Thanks!", "good morning", "hey there"]) expect(isSmallTalk(hi)).toBe(true);
    for (const q of ["Hi, how do reviews work?", "hello world program in python", "How are runs resumed?"]) expect(isSmallTalk(q)).toBe(false);
    const out = await model.generate({ purpose: "chat", prompt: "Hi!", passages: [{ id: "g1", title: "Guide", text: GUIDE }] });
    expect(out.text).toBe(SMALL_TALK_REPLY);
    expect(out.text).toMatch(/No language model is configured/);
    expect(out.text).toMatch(/Settings/);
    expect(out.text).toMatch(/OPENAI_BASE_URL/);
    expect(out.text.length).toBeLessThan(BRIEF_REPLY_CHARS);
    expect(out.citations).toEqual([]);
  });

  it("an offline object costs no tokens", async () => {
    const { z } = await import("zod");
    const out = await model.generateObject({ purpose: "plan", prompt: "a long prompt ".repeat(50), schema: z.object({ a: z.number() }), schemaName: "x", offline: () => ({ a: 1 }) });
    expect(out.usage).toEqual({ promptTokens: 0, completionTokens: 0, estimated: false });
  });
});
