// domain-agent's offline engine never grades its own wording: the offline evaluation checks the
// data an answer rests on (its findings, its citations), and the offline answer writes those findings.
import { describe, expect, it } from "vitest";
import { offlineAnswer, offlineEvaluation } from "../effects/answer";
import type { Analysis, QueryPlan } from "../types";

describe("domain-agent offline evaluation checks data, not its own wording", () => {
  const plan = { decision: "RETRIEVE", focus: ["sleep"], causal: true, window: { label: "this week", from: "2026-11-17", to: "2026-11-23" } } as unknown as QueryPlan;
  const analysis: Analysis = {
    verdict: "SUFFICIENT",
    findings: [
      { statement: "Sleep averaged 5.5 h, down from 7.2 h.", domain: "sleep", concern: true, evidence: ["e1"], metric: "sleep_hours" },
      { statement: "Training load rose 40%.", domain: "training", concern: true, evidence: ["e2"], metric: "distance_km" },
    ],
    gap: null,
    reason: "enough data",
    adapter: "offline engine",
  };

  it("the verdict does not change when the answer's wording does", () => {
    const answer = { text: "anything at all", citations: ["e1", "e2"] };
    const a = offlineEvaluation({ query: "why is my sleep worse?", answer, analysis, plan, partial: false });
    const b = offlineEvaluation({ query: "why is my sleep worse?", answer: { ...answer, text: "Your sleep is worse over this week.\n\nLikely contributors:" }, analysis, plan, partial: false });
    expect(a).toEqual(b);
    expect(a.verdict).toBe("PASS");
    expect(a.reasons[0]).toMatch(/offline check of the data, not of the wording/);
  });

  it("fails on the data: no contributor finding for a why-question, no citations", () => {
    const onlySleep = { ...analysis, findings: [analysis.findings[0]!] };
    const e = offlineEvaluation({ query: "why is my sleep worse?", answer: { text: "x", citations: [] }, analysis: onlySleep, plan, partial: false });
    expect(e.verdict).toBe("FAIL");
    expect(e.reasons).toEqual(expect.arrayContaining(["cites no log entry", "asked why, but no finding points to a likely contributor"]));
    expect(e.score).toBeLessThan(1);
  });

  it("offlineAnswer still writes the findings it rests on", () => {
    const ctx = { domains: ["sleep", "training"], expertise: [], profile: {} } as never;
    const d = offlineAnswer({ query: "why is my sleep worse?", plan, analysis, context: ctx, clarification: null, partial: false, entries: [] });
    expect(d.text).toContain("Training load rose 40%");
  });
});
