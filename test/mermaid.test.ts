// Mermaid stateDiagram-v2 ⇄ FlowConfig: the nine state diagrams of the seed documents (copied
// verbatim into test/fixtures/seed-diagrams), errors with their lines, the round trip through
// flowToMermaid, and a built-in machine's derived graph as a FlowConfig.
import { readFileSync } from "node:fs";
import path from "node:path";
import { setup } from "xstate";
import { describe, expect, it } from "vitest";
import { flowToMermaid, graphToFlow, graphToMermaid, parseMermaid } from "../lib/flows/mermaid";
import type { FlowConfig } from "../lib/flows/types";
import { deriveGraph } from "../lib/graph/derive";

const read = (file: string) => readFileSync(path.join(import.meta.dirname, "fixtures/seed-diagrams", file), "utf8");
const distinct = (c: FlowConfig) => Object.values(c.transitions).reduce((n, ts) => n + ts.length, 0);

// Counted by hand from the diagram text:
//   states      = named states, composites and <<choice>> states included, [*] not;
//   arrows      = every `-->` statement, [*] starts and ends included (a pair written twice counts twice);
//   transitions = distinct `A --> B` pairs between named states ([*] starts and ends not included).
const SEEDS = [
  { file: "000-agent.mmd", states: 23, arrows: 33, transitions: 28, initial: "ROUTE" },
  { file: "001-swiss-army.mmd", states: 6, arrows: 16, transitions: 10, initial: "IDLE" },
  { file: "004-1-router.mmd", states: 14, arrows: 22, transitions: 13, initial: "RouteRequest" },
  { file: "004-2-chat.mmd", states: 6, arrows: 8, transitions: 5, initial: "CacheCheck" },
  { file: "004-3-knowledge.mmd", states: 8, arrows: 10, transitions: 7, initial: "CacheCheck" },
  { file: "004-4-search.mmd", states: 4, arrows: 5, transitions: 3, initial: "GenerateSearchQueries" },
  { file: "004-5-code.mmd", states: 4, arrows: 6, transitions: 3, initial: "GenerateCode" },
  { file: "004-6-thinking.mmd", states: 5, arrows: 6, transitions: 4, initial: "ProblemAnalysis" },
  { file: "004-7-deep-research.mmd", states: 11, arrows: 17, transitions: 10, initial: "InitWorkflow" },
];

/** what else each diagram must contain (checked with toMatchObject) */
const DETAILS: Record<string, { config: Partial<FlowConfig> & Record<string, unknown>; lines?: Record<string, number> }> = {
  "000-agent.mmd": {
    config: {
      choices: ["input_type", "analysis_result", "user_response", "eval_result"],
      parents: { PARSE_BRANCH: "BOTH_SPLIT", PLAN_BRANCH: "BOTH_SPLIT", STORE_BRANCH: "BOTH_SPLIT", QUERY_FLOW: "BOTH_SPLIT" },
      initials: { BOTH_SPLIT: ["PARSE_BRANCH", "PLAN_BRANCH"] },
      ends: ["COMPLETE"],
      transitions: { input_type: ["PLAN", "PARSE", "BOTH_SPLIT"], eval_result: ["OBSERVE", "PLAN"], BOTH_SPLIT: [], COMPLETE: [] },
      labels: { "[*] -> ROUTE": "User Input", "eval_result -> OBSERVE": "Pass / Fail (over limit, partial)", "PLAN -> CLARIFY": "Non-retrievable gaps" },
    },
    lines: { ROUTE: 2, "[*] -> ROUTE": 2, BOTH_SPLIT: 10, PARSE_BRANCH: 13, "eval_result -> OBSERVE": 45, "COMPLETE -> [*]": 53 },
  },
  "001-swiss-army.mmd": {
    config: {
      stages: ["IDLE", "REQUEST_RECEIVED", "CONTEXT_SEARCH", "EXECUTING", "CONTEXT_UPDATE", "HUMAN_REVIEW"],
      transitions: { CONTEXT_SEARCH: ["EXECUTING", "IDLE"], HUMAN_REVIEW: ["IDLE"], CONTEXT_UPDATE: ["HUMAN_REVIEW", "IDLE"] },
      labels: {
        "CONTEXT_SEARCH -> EXECUTING": "Context retrieved / Context timeout (proceed anyway)",
        "REQUEST_RECEIVED -> IDLE": "Invalid request / User abort",
        "[*] -> IDLE": "System Start",
      },
    },
    lines: { "CONTEXT_SEARCH -> EXECUTING": 6 },
  },
  "004-1-router.mmd": {
    config: {
      // `state CheckRuntime <<choice>>` comes after its first mention: Mermaid keeps the kind of the
      // first mention, so it draws (and we read) a plain state; the same in 004-2 and 004-5
      notes: { RouteRequest: "DefaultRouter.route()" },
      parents: { CacheCheck: "ModelRuntime", CachePut: "ModelRuntime", ErrorClassify: "AgentRuntime", WorkflowFailed: "AgentRuntime" },
      initials: { ModelRuntime: ["CacheCheck"], AgentRuntime: ["WorkflowInit"] },
      ends: ["CacheHit", "ProcessorExec", "CachePut", "WorkflowComplete", "WorkflowFailed", "RecordMetrics"],
      transitions: { ModelRuntime: ["RecordMetrics"], ErrorClassify: ["RetryableExec", "WorkflowFailed"] },
      labels: { "ProcessorExec -> [*]": "System 2 result", "RouteRequest -> CheckRuntime": "RoutingDecision" },
    },
    lines: { CacheHit: 12, "CacheHit -> [*]": 14, RecordMetrics: 31 },
  },
  "004-2-chat.mmd": {
    config: {
      notes: { CacheCheck: "Check ResponseCache (SHA-256 key)", CallLLM: "MultiProviderLLMClient.generate()" },
      labels: { "BuildPrompt -> CallLLM": "generate(prompt)" },
      ends: ["ReturnCached", "ReturnResult"],
    },
  },
  "004-3-knowledge.mmd": {
    config: {
      transitions: { CacheCheck: ["ReturnCached", "GenerateEmbeddings"], CachePut: ["ReturnResult"] },
      notes: { SearchVectorDB: "Query Qdrant for top-k documents" },
      labels: { "SearchVectorDB -> SynthesizeContext": "Combine retrieved chunks + query" },
    },
  },
  "004-4-search.mmd": {
    config: {
      stages: ["GenerateSearchQueries", "ExecuteSearches", "SynthesizeResults", "CallLLM"],
      ends: ["CallLLM"],
      notes: { ExecuteSearches: "Search via Tavily / Serper / DuckDuckGo" },
    },
  },
  "004-5-code.mmd": {
    config: {
      notes: { ExecuteInSandbox: "SandboxService.execute(code, timeout)" },
      labels: { "ExecuteInSandbox -> FormatError": "Non-zero exit / timeout" },
      ends: ["FormatSuccess", "FormatError"],
    },
  },
  "004-6-thinking.mmd": {
    config: {
      stages: ["ProblemAnalysis", "MultiPerspective", "DeepReasoning", "SynthesisAndReflection", "FinalAnswer"],
      transitions: { ProblemAnalysis: ["MultiPerspective"], SynthesisAndReflection: ["FinalAnswer"], FinalAnswer: [] },
      notes: { DeepReasoning: "Logical inference with step-by-step thinking" },
    },
  },
  "004-7-deep-research.mmd": {
    config: {
      choices: ["ErrorHandling"],
      parents: {
        WriteReportPlan: "RetryBoundary",
        GenerateSearchQueries: "RetryBoundary",
        ExecuteSearchTasks: "RetryBoundary",
        SearchTask: "ExecuteSearchTasks",
        ProcessResult: "ExecuteSearchTasks",
        WriteFinalReport: "RetryBoundary",
      },
      initials: { RetryBoundary: ["WriteReportPlan"], ExecuteSearchTasks: ["SearchTask"] },
      ends: ["ProcessResult", "WriteFinalReport", "WorkflowComplete", "WorkflowFailed"],
      transitions: { ErrorHandling: ["RetryBoundary", "WorkflowFailed"], ProcessResult: ["SearchTask"] },
      labels: { "ProcessResult -> [*]": "All tasks done" },
    },
    lines: { ExecuteSearchTasks: 11, "ExecuteSearchTasks -> WriteFinalReport": 21 },
  },
};

describe("parseMermaid on the seed diagrams", () => {
  it.each(SEEDS)("$file: $states states, $arrows arrows, $transitions transitions", ({ file, states, arrows, transitions, initial }) => {
    const parsed = parseMermaid(read(file));
    expect(parsed.issues).toEqual([]);
    expect(parsed.config.stages).toHaveLength(states);
    expect(new Set(parsed.config.stages).size).toBe(states);
    expect(parsed.arrows).toBe(arrows);
    expect(distinct(parsed.config)).toBe(transitions);
    expect(parsed.config.initial_stage).toBe(initial);
    expect(parsed.config.id).toBe("imported-workflow");
    // every stage has a transitions entry and a line
    expect(Object.keys(parsed.config.transitions).sort()).toEqual([...parsed.config.stages].sort());
    for (const s of parsed.config.stages) expect(parsed.lines[s]).toBeGreaterThan(0);
    expect(parsed.config).toMatchObject(DETAILS[file]!.config);
    expect(parsed.lines).toMatchObject(DETAILS[file]!.lines ?? {});
  });
});

describe("parseMermaid syntax", () => {
  it("reads a fence, front matter, comments, styling, notes and nested composites", () => {
    const src = [
      "```mermaid", // 1
      "---",
      "title: Order Flow",
      "---",
      "stateDiagram-v2", // 5
      "    direction LR",
      "    %% a comment",
      "    classDef hot fill:#f00",
      "    [*] --> Draft:::hot : start here %% trailing comment",
      "    state \"Being written\" as Draft", // 10
      "    Draft: second line",
      "    state Review {",
      "        [*] --> Left",
      "        Left --> LeftDone",
      "        --", // 15
      "        [*] --> Right",
      "        state Right {",
      "            [*] --> Deep",
      "            state Deep {",
      "                [*] --> Deeper", // 20
      "            }",
      "        }",
      "    }",
      "    note right of Draft : ignored",
      "    note left of Review", // 25
      "        also ignored --> X",
      "    end note",
      "    class Draft, Review hot",
      "    style Draft fill:#fff",
      "    Draft --> Review : submit", // 30
      "    Draft --> Review : resubmit",
      "    Draft --> Review : submit",
      "    state Sent",
      "    Review --> Sent",
      "    Sent --> [*] : done", // 35
      "```",
      "not part of the diagram",
    ].join("\n");
    const { config, lines, issues, arrows } = parseMermaid(src);
    expect(issues).toEqual([]);
    expect(arrows).toBe(11);
    expect(config).toEqual({
      id: "order-flow",
      title: "Order Flow",
      stages: ["Draft", "Review", "Left", "LeftDone", "Right", "Deep", "Deeper", "Sent"],
      initial_stage: "Draft",
      transitions: { Draft: ["Review"], Review: ["Sent"], Left: ["LeftDone"], LeftDone: [], Right: [], Deep: [], Deeper: [], Sent: [] },
      parents: { Left: "Review", LeftDone: "Review", Right: "Review", Deep: "Right", Deeper: "Deep" },
      initials: { Review: ["Left", "Right"], Right: ["Deep"], Deep: ["Deeper"] },
      ends: ["Sent"],
      // `%%` inside a label is part of it (Mermaid's lexer reads the label to the end of the line)
      labels: { "[*] -> Draft": "start here %% trailing comment", "Draft -> Review": "submit / resubmit", "Sent -> [*]": "done" },
      notes: { Draft: "Being written\nsecond line" },
    });
    expect(lines).toMatchObject({ Draft: 9, "[*] -> Draft": 9, Review: 12, Deeper: 20, "Draft -> Review": 30, Sent: 34, "Sent -> [*]": 35 });
    expect(parseMermaid(src, { id: "mine" }).config.id).toBe("mine");
  });

  it("accepts the old header and a diagram without [*] (the first state starts, implicitly)", () => {
    // `state A: first` is two bare words to Mermaid ("A:" and "first"), declaring nothing
    const { config, issues } = parseMermaid("stateDiagram\n  state A: first\n  A --> B\n  B : second\n");
    expect(issues).toEqual([]);
    expect(config).toEqual({ id: "imported-workflow", stages: ["A", "B"], initial_stage: "A", implicit_start: true, transitions: { A: ["B"], B: [] }, notes: { B: "second" } });
    // an export says which workflow it is: its title and id in the front matter
    expect(flowToMermaid(config)).toBe("---\ntitle: imported-workflow\nswitchyard:\n  id: imported-workflow\n---\nstateDiagram-v2\n    A\n    A --> B\n    B : second\n");
    expect(parseMermaid(flowToMermaid(config)).config).toEqual(config);
  });
});

describe("parseMermaid errors", () => {
  const issuesOf = (src: string) => parseMermaid(src).issues;

  it("reports where Mermaid's parser stops, counting lines from the top (fence and front matter included)", () => {
    expect(issuesOf("stateDiagram-v2\n  [*] --> A\n  A -> B\n  A --> B\n")).toEqual([{ message: 'cannot read "A -> B" (Mermaid cannot read "-" here)', line: 3 }]);
    expect(issuesOf("```mermaid\n---\ntitle: T\n---\nstateDiagram-v2\n  [*] --> A\n  A -> B\n```\n")).toEqual([{ message: 'cannot read "A -> B" (Mermaid cannot read "-" here)', line: 7 }]);
  });

  it("reports an unclosed brace at the line that opens it", () => {
    expect(issuesOf("stateDiagram-v2\n  [*] --> A\n  state A {\n    [*] --> B\n")).toEqual([{ message: '"state A {" is never closed with "}"', line: 3 }]);
  });

  it("requires the stateDiagram header first", () => {
    expect(issuesOf("\n%% comment\n[*] --> A\nA --> B\n")).toEqual([{ message: 'a diagram must start with "stateDiagram-v2", not "[*] --> A"', line: 3 }]);
    expect(issuesOf("")).toEqual([{ message: 'the diagram is empty: expected "stateDiagram-v2"' }]);
  });

  it("refuses a second top-level start, saying why (a run starts in one stage)", () => {
    expect(issuesOf("stateDiagram-v2\n  [*] --> A\n  [*] --> B\n")).toEqual([
      { message: 'a second top-level start "[*] --> B" (the first is "[*] --> A"): a run starts in one stage; draw one [*] and move on from there', line: 3 },
    ]);
  });
});

// Writing a parallel composite region by region reorders its children: in 000 the two regions'
// states were interleaved (PARSE_BRANCH, PLAN_BRANCH, STORE_BRANCH, QUERY_FLOW).
const WRITTEN_ORDER: Record<string, string[]> = {
  "000-agent.mmd": [
    ...["ROUTE", "BUILD_CONTEXT", "input_type", "PLAN", "PARSE", "BOTH_SPLIT"],
    ...["PARSE_BRANCH", "STORE_BRANCH", "PLAN_BRANCH", "QUERY_FLOW"],
    ...["RETRIEVE", "EXPAND_DOMAIN", "CLARIFY", "SYNTHESIZE", "ANALYZE", "analysis_result", "WAIT_USER", "user_response", "EVALUATE", "eval_result", "OBSERVE", "STORE", "COMPLETE"],
  ],
};

describe("flowToMermaid", () => {
  it.each(SEEDS)("$file round-trips through flowToMermaid → parseMermaid", ({ file }) => {
    const first = parseMermaid(read(file)).config;
    const text = flowToMermaid(first);
    const again = parseMermaid(text);
    expect(again.issues).toEqual([]);
    expect(again.config).toEqual({ ...first, stages: WRITTEN_ORDER[file] ?? first.stages });
    expect(flowToMermaid(again.config)).toBe(text);
  });

  it("writes regions, choices, notes, labels, ends and a title", () => {
    const text = flowToMermaid(parseMermaid(read("000-agent.mmd")).config);
    expect(text.startsWith("---\ntitle: imported-workflow\nswitchyard:\n  id: imported-workflow\n---\nstateDiagram-v2\n    [*] --> ROUTE : User Input\n")).toBe(true);
    expect(text).toContain(
      ["    state BOTH_SPLIT {", "        [*] --> PARSE_BRANCH", "        PARSE_BRANCH --> STORE_BRANCH", "        --", "        [*] --> PLAN_BRANCH", "        PLAN_BRANCH --> QUERY_FLOW", "    }"].join("\n"),
    );
    expect(text).toContain("    state eval_result <<choice>>\n");
    expect(text).toContain("    eval_result --> OBSERVE : Pass / Fail (over limit, partial)\n");
    expect(text).toContain("    COMPLETE --> [*]\n");

    const titled = flowToMermaid({ id: "order", title: "Order: v2", description: "two\nlines", stages: ["A"], initial_stage: "A", transitions: { A: [] }, notes: { A: "one\ntwo" } });
    expect(titled).toBe('---\ntitle: "Order: v2"\nswitchyard:\n  id: order\n---\nstateDiagram-v2\n    accDescr: two#10;lines\n    [*] --> A\n    A : one\n    A : two\n');
    expect(parseMermaid(titled).config).toEqual({ id: "order", title: "Order: v2", description: "two\nlines", stages: ["A"], initial_stage: "A", transitions: { A: [] }, notes: { A: "one\ntwo" } });
  });

  it("writes any name, escaping with Mermaid's entity codes what its lexer would read otherwise", () => {
    const config: FlowConfig = { id: "x", stages: ["ok", "not ok", "a-b", "state", "end"], initial_stage: "ok", transitions: { ok: ["not ok", "a-b", "state", "end"], "not ok": [], "a-b": [], state: [], end: [] } };
    const text = flowToMermaid(config);
    expect(text).toContain("    ok --> not#32;ok\n    ok --> a#45;b\n    ok --> #115;tate\n    ok --> end\n");
    expect(parseMermaid(text, { id: "x" }).config).toEqual(config);
  });
});

describe("graphToFlow", () => {
  const machine = setup({ guards: { approved: () => true } }).createMachine({
    id: "order",
    initial: "Draft",
    states: {
      Draft: { meta: { name: "Drafting" }, on: { SUBMIT: "Review", SAVE: { actions: () => {} }, RESET: "Draft" } },
      Review: {
        description: "Two-person check",
        initial: "Check",
        states: {
          Check: { on: { PASS: { target: "Passed", guard: "approved" }, FAIL: "Rework" } },
          Rework: { on: { RETRY: "Check" } },
          Passed: { type: "final" },
        },
        onDone: "Ship",
        on: { CANCEL: "Cancelled" },
      },
      Ship: {
        type: "parallel",
        states: {
          Pack: { initial: "Check", states: { Check: { on: { OK: "Packed" } }, Packed: { type: "final" } } },
          Bill: { initial: "Invoice", states: { Invoice: { on: { PAID: "Paid" } }, Paid: { type: "final" } } },
        },
        onDone: "Done",
      },
      Cancelled: { type: "final" },
      Done: { type: "final" },
    },
  });
  const meta = { id: "order", title: "Order", description: "A small order flow" };
  const expected: FlowConfig = {
    ...meta,
    // "Check" is used twice, so both get their path; the regions Pack and Bill are flattened into Ship
    stages: ["Draft", "Review", "Review_Check", "Rework", "Ship", "Ship_Pack_Check", "Invoice"],
    initial_stage: "Draft",
    transitions: { Draft: ["Review"], Review: ["Ship"], Review_Check: ["Rework"], Rework: ["Review_Check"], Ship: [], Ship_Pack_Check: [], Invoice: [] },
    parents: { Review_Check: "Review", Rework: "Review", Ship_Pack_Check: "Ship", Invoice: "Ship" },
    initials: { Review: ["Review_Check"], Ship: ["Ship_Pack_Check", "Invoice"] },
    // final states are dropped: whatever leads into one is an end
    ends: ["Review", "Review_Check", "Ship", "Ship_Pack_Check", "Invoice"],
    labels: {
      "Draft -> Review": "SUBMIT",
      "Review -> Ship": "done",
      "Review -> [*]": "CANCEL",
      "Review_Check -> [*]": "PASS [approved]",
      "Review_Check -> Rework": "FAIL",
      "Rework -> Review_Check": "RETRY",
      "Ship -> [*]": "done",
      "Ship_Pack_Check -> [*]": "OK",
      "Invoice -> [*]": "PAID",
    },
    notes: { Draft: "Drafting", Review: "Two-person check" },
  };

  it("turns a machine's graph into a FlowConfig", () => {
    expect(graphToFlow(deriveGraph(machine), meta)).toEqual(expected);
  });

  it("writes it as Mermaid that reads back the same", () => {
    const text = graphToMermaid(deriveGraph(machine), meta);
    expect(text).toContain("    state Ship {\n        [*] --> Ship_Pack_Check\n        Ship_Pack_Check --> [*] : OK\n        --\n        [*] --> Invoice\n");
    const parsed = parseMermaid(text, { id: "order" });
    expect(parsed.issues).toEqual([]);
    expect(parsed.config).toEqual(expected);
  });
});
