// domain-agent's diagram: its error moves (to ERROR for a person, else FAILED) listed on each
// step, BOTH_SPLIT's regions side by side, every row of the seed's table an edge, RETRY from ERROR
// listed on ERROR rather than drawn as a fan, and its branches never wrapped as a long chain.
import { setup } from "xstate";
import { describe, expect, it } from "vitest";
import { deriveGraph } from "../../../lib/graph/derive";
import { elkGraphOf, isLongChain, layoutGraph } from "../../../lib/graph/layout";
import { domainAgentMachine } from "../machine";

describe("domain-agent's diagram", () => {
  it("domain-agent: error transitions into FAILED are listed on each state, BOTH_SPLIT's regions sit side by side", async () => {
    const l = await layoutGraph(deriveGraph(domainAgentMachine));
    const node = (id: string) => l.nodes.find((n) => n.id === id)!;
    for (const s of ["ROUTE", "PLAN", "RETRIEVE", "ANALYZE", "OBSERVE", "BOTH_SPLIT.PLAN_BRANCH.PLAN", "BOTH_SPLIT.PARSE_BRANCH.STORE"]) {
      // a model error goes to the ERROR review (retry or abort), anything else to FAILED
      const targets = node(s).errors.map((t) => t.target);
      expect(targets).toContain("FAILED");
      expect(targets.every((t) => t === "ERROR" || t === "FAILED"), `${s}: ${targets}`).toBe(true);
    }
    expect(node("ROUTE").errors.map((t) => t.target)).toEqual(["ERROR", "FAILED"]);
    expect(l.edges.filter((e) => e.target === "FAILED")).toEqual([]);
    const parse = node("BOTH_SPLIT.PARSE_BRANCH");
    const plan = node("BOTH_SPLIT.PLAN_BRANCH");
    expect(parse.parent).toBe("BOTH_SPLIT");
    expect(parse.x + parse.width <= plan.x || plan.x + plan.width <= parse.x).toBe(true);
    // every row of the seed's table is an edge of the diagram
    for (const key of ["ROUTE->BUILD_CONTEXT", "BUILD_CONTEXT->PLAN", "BUILD_CONTEXT->PARSE", "BUILD_CONTEXT->BOTH_SPLIT", "PLAN->RETRIEVE", "PLAN->EXPAND_DOMAIN", "PLAN->CLARIFY", "PLAN->SYNTHESIZE", "RETRIEVE->ANALYZE", "ANALYZE->SYNTHESIZE", "ANALYZE->PLAN", "ANALYZE->EXPAND_DOMAIN", "EXPAND_DOMAIN->BUILD_CONTEXT", "CLARIFY->WAIT_USER", "WAIT_USER->ANALYZE", "WAIT_USER->SYNTHESIZE", "SYNTHESIZE->EVALUATE", "EVALUATE->OBSERVE", "EVALUATE->PLAN", "PARSE->STORE", "STORE->OBSERVE", "OBSERVE->COMPLETE"]) {
      expect(l.edges.find((e) => e.id === key), key).toBeTruthy();
    }
  });

  it("domain-agent: RETRY from ERROR to each step is listed on ERROR, not drawn as a fan of edges", async () => {
    const l = await layoutGraph(deriveGraph(domainAgentMachine));
    const error = l.nodes.find((n) => n.id === "ERROR")!;
    expect(error.fans?.map((t) => t.target).sort()).toEqual(["ANALYZE", "BOTH_SPLIT", "BUILD_CONTEXT", "CLARIFY", "EVALUATE", "OBSERVE", "PLAN", "ROUTE", "SYNTHESIZE"]);
    expect(l.edges.filter((e) => e.source === "ERROR" && e.transitions.some((t) => t.event === "RETRY"))).toEqual([]);
  });

  it("only a long chain is wrapped: domain-agent's branches stay in one piece", () => {
    const states = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`S${i}`, i < 29 ? { on: { NEXT: `S${i + 1}` } } : { type: "final" as const }]));
    const chain = deriveGraph(setup({}).createMachine({ id: "chain", initial: "S0", states }));
    expect(isLongChain(chain, chain.transitions)).toBe(true);
    const g = deriveGraph(domainAgentMachine);
    expect(g.states.filter((s) => !s.parent).length).toBeGreaterThanOrEqual(8);
    expect(isLongChain(g, g.transitions)).toBe(false);
    expect(elkGraphOf(g).root.layoutOptions?.["elk.layered.wrapping.strategy"]).toBeUndefined();
    expect(elkGraphOf(chain).root.layoutOptions?.["elk.layered.wrapping.strategy"]).toBe("MULTI_EDGE");
  });

  it("a lone move that is always taken draws no \"Always\" label", async () => {
    const l = await layoutGraph(deriveGraph(domainAgentMachine));
    expect(l.edges.find((e) => e.id === "RETRIEVE->ANALYZE")!.label).toBeNull();
    expect(l.edges.find((e) => e.id === "ROUTE->BUILD_CONTEXT")!.label!.rows.map((r) => r.text).join(" ")).toBe("Always (domains selected)");
  });

});
