// deep-research offline never claims what it did not do: no "High confidence" on a quote, prose
// quoted as facts (never commands or code), and a conflict raised once.
import { describe, expect, it } from "vitest";
import type { EffectContext } from "../../../lib/engine/engine";
import { bindModel } from "../../../lib/llm/bound";
import { OfflineModel } from "../../../lib/llm/offline";
import type { SearchPort, SearchResult } from "../../../lib/search/types";
import { deepResearchEffects } from "../effects";
import { extractFacts, offlineReport } from "../effects/offline";
import type { Fact, Plan, Source } from "../research/types";

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

const result = (url: string, text: string, score = 1): SearchResult => ({ url, title: url, type: "Markdown", text, score, via: "knowledge store" });

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

