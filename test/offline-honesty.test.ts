// The offline engine never claims what it did not do: no
// "High confidence" on a quote, no coverage score presented as quality, prose quoted as findings
// (never commands or code), a short reply to small talk that says how to connect a model, and no
// tokens for work no model did. (No evaluation grading its own template's phrases: domain-agent's,
// workflows/domain-agent/test/offline-evaluation.test.ts.)
import { describe, expect, it } from "vitest";
import { deepResearchEffects } from "../workflows/deep-research/effects";
import { extractFacts, offlineReport } from "../workflows/deep-research/effects/offline";
import type { EffectContext } from "../lib/engine/engine";
import { isSmallTalk, OfflineModel, SMALL_TALK_REPLY } from "../lib/llm/offline";
import { isProseSentence, withoutCode } from "../lib/llm/prose";
import { bindModel } from "../lib/llm/bound";
import type { Fact, Plan, Source } from "../workflows/deep-research/research/types";
import type { SearchPort, SearchResult } from "../lib/search/types";

const GUIDE = [
  "Start a run with the REST API:",
  "",
  "```bash",
  "curl -s localhost:3000/api/runs -H 'content-type: application/json' \\",
  "  -d '{\"workflow\":\"swiss-army\",\"input\":{\"request\":\"hi\"}}'",
  "```",
  "",
  "A run survives a restart because every transition is committed to the database before its effects start.",
  "",
  "    curl -s localhost:3000/api/runs/$RUN/events -d '{}'",
  "",
  "After a crash the engine reloads each running run from its last committed snapshot and restarts its pending effects.",
].join("\n");

const result = (url: string, text: string, score = 1): SearchResult => ({ url, title: url, type: "Markdown", text, score, via: "knowledge store" });

describe("prose, not commands", () => {
  it("drops fenced and indented code, and refuses commands as sentences", () => {
    const prose = withoutCode(GUIDE);
    expect(prose).not.toMatch(/curl|```/);
    expect(prose).toContain("A run survives a restart");
    expect(isProseSentence("curl -s localhost:3000/api/runs -H 'content-type: application/json' \\ -d '{}'")).toBe(false);
    expect(isProseSentence("```bash curl -s localhost:3000/api/runs")).toBe(false);
    expect(isProseSentence('{"workflow":"swiss-army","input":{}}')).toBe(false);
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
    expect(out.text.length).toBeLessThan(400);
    expect(out.citations).toEqual([]);
  });

  it("an offline object costs no tokens", async () => {
    const { z } = await import("zod");
    const out = await model.generateObject({ purpose: "plan", prompt: "a long prompt ".repeat(50), schema: z.object({ a: z.number() }), schemaName: "x", offline: () => ({ a: 1 }) });
    expect(out.usage).toEqual({ promptTokens: 0, completionTokens: 0, estimated: false });
  });
});

describe("deep-research offline (facts, report, conflicts)", () => {
  const results = [
    result("https://a.example/guide", GUIDE, 2),
    result("https://a.example/guide", "A run survives a restart because every transition is committed to the database before its effects start. Snapshots are small.", 1.5),
    result("https://b.example/notes", "Every transition is committed to the database before effects start, so a run survives a restart of the process.", 1),
  ];

  it("quotes prose only and never rates a quote High", () => {
    const { facts } = extractFacts("run survives restart crash committed transition", results);
    expect(facts.length).toBeGreaterThan(0);
    expect(facts.every((f) => f.confidence !== "High")).toBe(true);
    expect(facts.some((f) => /curl|```|\$RUN/.test(f.statement))).toBe(false);
    // confirmed only by a passage of the same document: still Low; by another address: Medium
    const same = extractFacts("run survives restart crash committed transition", results.slice(0, 2)).facts;
    expect(same.every((f) => f.confidence === "Low")).toBe(true);
    expect(facts.some((f) => f.confidence === "Medium")).toBe(true);
  });

  it("report.md says what the offline engine did and shows no High confidence", () => {
    const plan: Plan = { topic: "t", dimensions: ["Recovery"], tasks: [], estimatedIterations: 1 };
    const facts: Fact[] = [{ id: "Fact-001", statement: "A run survives a restart because every transition is committed first.", source: "S01", confidence: "Low", rawFile: "", extracted: "2026-11-23", task: "R1", dimension: "Recovery" }];
    const sources: Source[] = [{ id: "S01", url: "https://a.example", title: "Guide", type: "Markdown", accessDate: "2026-11-23", localPath: "assets/txt/s01.txt" }];
    const report = offlineReport("How do runs recover?", "DR-1", plan, facts, sources);
    expect(report).not.toMatch(/High confidence|Medium confidence|Low confidence/);
    expect(report).toMatch(/1 sentence quoted from 1 source that share words with the topic/);
    expect(report).toMatch(/quoted from one passage/);
  });

  it("a conflict earlier rounds raised is not raised again", async () => {
    const knowledge: SearchPort = { name: "kb", search: async () => [] };
    const effects = deepResearchEffects({ knowledge, missionsOn: async () => 1 });
    const reflect = effects.actors.reflect as unknown as (input: unknown, ctx: EffectContext) => Promise<{ conflicts: { subject: string }[] }>;
    const plan: Plan = { topic: "timeouts", dimensions: ["Limits"], tasks: [], estimatedIterations: 1 };
    const fact = (id: string, n: number, source: string): Fact => ({ id, statement: `The execution timeout default lasts ${n} minutes per run.`, source, confidence: "Low", rawFile: "", extracted: "", task: "R1", dimension: "Limits" });
    const facts = [fact("Fact-001", 10, "S01"), fact("Fact-002", 15, "S02")];
    const site = { runId: "r", state: "REFLECTING", key: "k", signal: new AbortController().signal };
    const ctx = { ...site, model: bindModel(() => new OfflineModel(), site) } as unknown as EffectContext;
    const first = await reflect({ topic: "timeouts", plan, facts, sources: [], round: 1, known: [] }, ctx);
    expect(first.conflicts).toHaveLength(1);
    const second = await reflect({ topic: "timeouts", plan, facts, sources: [], round: 2, known: first.conflicts.map((c) => c.subject) }, ctx);
    expect(second.conflicts).toEqual([]);
  });
});
