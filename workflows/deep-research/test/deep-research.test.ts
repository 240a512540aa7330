// Deep-research (workflows/deep-research/guide.md) through the real engine on SQLite: every transition rule, the iteration limits, the
// recovery patterns and the artifacts, on the offline engine over the shipped guide corpus.
import { afterEach, describe, expect, it } from "vitest";
import type { EffectContext } from "../../../lib/engine/engine";
import type { RunView } from "../../../lib/engine/views";
import type { ResearchContext, TaskResult } from "../types";
import { deepResearchMachine } from "../machine";
import { parseTaskMd } from "../research/taskmd";
import { MISSION_STATUSES } from "../research/types";
import type { Plan, Task } from "../research/types";
import { fail } from "../../../test/helpers";
import { researchRuntime } from "./support";
import { EffectError } from "../../../lib/engine/effect-error";

let rt: Awaited<ReturnType<typeof researchRuntime>> | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

const TOPIC = "How does Switchyard resume runs after a restart and keep timers durable?";
const settled = (r: RunView) => r.status !== "running";
const ctxOf = (r: RunView) => r.context as ResearchContext;

async function reasons(runId: string): Promise<string[]> {
  return (await rt!.store.transitions(runId)).map((t) => `${t.from.join(",") || "*"}>${t.to.join(",")}: ${t.reason}`);
}

async function startToApproval(config: Record<string, number> = {}, topic = TOPIC) {
  const { run } = await rt!.engine.start("deep-research", { topic, config: { checkinEvery: 0, ...config } });
  const r = await rt!.engine.waitFor(run.id, settled);
  expect(r.state).toEqual(["PLANNING.approval"]);
  return r;
}

async function approve(r: RunView) {
  await rt!.engine.decide(r.reviewId!, { decision: "approve", reviewer: "ana" });
  return rt!.engine.waitFor(r.id, settled);
}

/** A sub-agent stand-in: one fact and one source per task, from a fixed corpus. */
function scripted(opts: { fail?: (task: Task, attempt: number) => string | null; delayMs?: number; track?: { now: number; max: number } } = {}) {
  return async (input: { task: Task; attempt: number }, ctx: EffectContext): Promise<TaskResult> => {
    const { task, attempt } = input;
    if (opts.track) {
      opts.track.now++;
      opts.track.max = Math.max(opts.track.max, opts.track.now);
    }
    try {
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      const why = opts.fail?.(task, attempt);
      if (why) throw new Error(why);
      const n = Number(task.id.slice(1)) || 0;
      return {
        taskId: task.id,
        attempt,
        approach: attempt === 1 ? "test: task query" : "test: alternative query",
        query: task.query ?? task.description,
        sources: [{ url: `https://example.org/${task.id}`, title: `Source for ${task.id}`, type: "HTML", raw: `<p>${task.id}</p>` }],
        facts: task.type === "Planning" ? [] : [{ statement: `${task.id} (${task.dimension ?? "general"}) found ${n} durable timers in ${ctx.runId.length} places.`, source: 0, confidence: "Medium" }],
        notes: "",
        tokens: 10,
        toolsUsed: 1,
      };
    } finally {
      if (opts.track) opts.track.now--;
    }
  };
}

const smallPlan = (topic: string): Plan => ({
  topic,
  dimensions: ["Mechanisms", "Limits"],
  tasks: [
    { id: "P1", type: "Planning", description: "decompose", status: "PENDING", dependsOn: [], query: topic },
    { id: "S1", type: "Search", description: "search mechanisms", status: "PENDING", dependsOn: ["P1"], query: "durable timers restart", dimension: "Mechanisms", critical: true },
    { id: "S2", type: "Search", description: "search limits", status: "PENDING", dependsOn: ["P1"], query: "execution timeout limit", dimension: "Limits", critical: true },
    { id: "R1", type: "Read", description: "read mechanisms", status: "PENDING", dependsOn: ["S1"], query: "resume unfinished runs", dimension: "Mechanisms" },
    { id: "R2", type: "Read", description: "read limits", status: "PENDING", dependsOn: ["S2"], query: "timeouts configurable", dimension: "Limits" },
  ],
  estimatedIterations: 5,
});

describe("deep-research on the offline engine", () => {
  it("task.md's status values are the machine's top-level states (but ABORTED)", () => {
    expect(Object.keys(deepResearchMachine.states).filter((s) => s !== "ABORTED")).toEqual([...MISSION_STATUSES]);
  });

  it("plans, waits for approval, researches the DAG, reflects, and writes report.md with cited sources", async () => {
    rt = await researchRuntime();
    const waiting = await startToApproval();
    const plan = ctxOf(waiting).plan!;
    expect(plan.dimensions.length).toBeGreaterThanOrEqual(3);
    expect(plan.tasks.map((t) => t.id)).toContain("P1");
    expect(plan.tasks.filter((t) => t.type === "Search").every((t) => t.dependsOn.includes("P1"))).toBe(true);
    expect(ctxOf(waiting).missionId).toBe("DR-20261123-001");

    // the review queue holds the plan, rendered from the context
    const [review] = await rt.store.listReviews({ status: "pending" });
    expect(review).toMatchObject({ runId: waiting.id, kind: "plan_approval" });
    expect((review!.payload as { plan: Plan }).plan.dimensions).toEqual(plan.dimensions);

    const done = await approve(waiting);
    expect(done.state).toEqual(["COMPLETED"]);
    expect(done.status).toBe("completed");
    const c = ctxOf(done);
    expect(c.status).toBe("COMPLETED");
    expect(c.tasks.every((t) => t.status === "COMPLETED")).toBe(true);
    expect(c.facts.length).toBeGreaterThan(3);
    for (const f of c.facts) {
      expect(f.id).toMatch(/^Fact-\d{3}$/);
      expect(["High", "Medium", "Low"]).toContain(f.confidence);
      expect(c.sources.some((s) => s.id === f.source)).toBe(true);
      expect(f.extracted).toBe("2026-11-23");
    }
    for (const s of c.sources) {
      expect(s).toMatchObject({ id: expect.stringMatching(/^S\d{2}$/), accessDate: "2026-11-23" });
      expect(s.url).toMatch(/^docs\/guide\/.+\.md$/); // the shipped corpus, searched offline
      expect(s.localPath).toMatch(/^assets\//);
    }
    expect(c.reflections.length).toBeGreaterThan(0);
    expect(c.report).toContain(`# ${TOPIC}`);
    expect(c.report).toMatch(/\[S\d{2}\]/);
    expect(c.report).toContain("## Sources");
    expect(c.reportAdapter).toBe("offline engine");

    const path = await reasons(done.id);
    expect(path.slice(0, 3)).toEqual(["*>PLANNING.generating: run started", "PLANNING.generating>PLANNING.approval: Plan generated", "PLANNING.approval>RESEARCHING.working: User approves plan"]);
    expect(path).toContain("RESEARCHING.working>RESEARCHING.working: Update state, find next task");
    expect(path).toContain("RESEARCHING.working>REFLECTING: All current DAG tasks marked [x]");
    expect(path.at(-2)).toBe("REFLECTING>SYNTHESIZING: Completeness confirmed, no critical gaps");
    expect(path.at(-1)).toBe("SYNTHESIZING>COMPLETED: report.md generated successfully");
  });

  it("keeps the seed's artifacts current: task.md (round-trips), report.md, the append-only audit log and the reasoning stream", async () => {
    rt = await researchRuntime();
    const done = await approve(await startToApproval({ progressEvery: 5 }));
    const names = (await rt.store.artifacts(done.id)).map((a) => a.name);
    expect(names).toEqual(expect.arrayContaining(["task.md", "report.md", "logs/orchestrator.log", "orchestrator.md"]));
    expect(names.some((n) => n.startsWith("assets/"))).toBe(true);

    const taskMd = (await rt.store.artifact(done.id, "task.md"))!;
    expect(taskMd.startsWith(`---\nmission_id: "DR-20261123-001"\ncreated_at: "2026-11-23T09:00:00Z"\nstatus: "COMPLETED"\n`)).toBe(true);
    const parsed = parseTaskMd(taskMd);
    const c = ctxOf(done);
    expect(parsed.meta).toMatchObject({ mission_id: c.missionId, status: "COMPLETED", topic: TOPIC, iteration: c.iteration, max_iterations: 50 });
    expect(parsed.meta.cost_tracking.total_tokens).toBe(c.tokens);
    expect(parsed.tasks.map((t) => `${t.id}:${t.status}`)).toEqual(c.tasks.map((t) => `${t.id}:${t.status}`));
    expect(parsed.facts.map((f) => f.id)).toEqual(c.facts.map((f) => f.id));
    expect(parsed.sources.map((s) => s.id)).toEqual(c.sources.map((s) => s.id));

    expect(await rt.store.artifact(done.id, "report.md")).toBe(c.report);

    const log = (await rt.store.artifact(done.id, "logs/orchestrator.log"))!;
    const kinds = log.trim().split("\n").map((l) => l.split(" ")[1]);
    for (const k of ["START", "PLAN", "APPROVAL", "DISPATCH", "RESULT", "TRANSITION", "PROGRESS", "REFLECTION", "COMPLETE"]) expect(kinds).toContain(k);
    expect(log).toMatch(/PLAN version=1 topic=".+" dimensions=".+" tasks=\d+ estimated_iterations=\d+/);
    expect(log).toMatch(/DISPATCH task=S1 agent=search-agent params=\{"query":/);
    expect(log).toMatch(/RESULT task=R1 facts=\d+ sources=\d+ files="/);
    expect(log).toMatch(/TRANSITION from=RESEARCHING to=REFLECTING reason="All current DAG tasks marked \[x\]"/);
    expect(log.match(/PROGRESS iteration=(\d+)/g)!.map((m) => Number(m.split("=")[1]) % 5)).toSatisfy((xs: number[]) => xs.length > 0);
    const md = (await rt.store.artifact(done.id, "orchestrator.md"))!;
    expect(md).toContain(`# Orchestrator reasoning: ${TOPIC}`);
    expect(md).toContain("### Reflection 1");
  });

  it("MODIFY stores the reviewer's edit as a diff and re-plans with it", async () => {
    rt = await researchRuntime({ actors: { researchTask: scripted() as never } });
    const first = await startToApproval();
    const edited = smallPlan(TOPIC);
    await rt.engine.decide(first.reviewId!, { decision: "modify", feedback: "two dimensions are enough", data: { plan: edited } });
    const second = await rt.engine.waitFor(first.id, settled);
    expect(second.state).toEqual(["PLANNING.approval"]);
    const c = ctxOf(second);
    expect(c.planVersion).toBe(2);
    expect(c.plan!.dimensions).toEqual(["Mechanisms", "Limits"]);
    expect(c.revisions).toHaveLength(1);
    expect(c.revisions[0]!.feedback).toBe("two dimensions are enough");
    expect(c.revisions[0]!.diff).toContain("+ dimension: Mechanisms");
    expect(c.revisions[0]!.diff).toMatch(/^- dimension: /m);
    // the first version is kept, and the second review shows what changed since it
    expect(c.revisions[0]!.plan).toEqual(ctxOf(first).plan);
    const review = (await rt.store.getReview(second.reviewId!))!;
    expect(review.payload).toMatchObject({ kind: "plan", version: 2, first: { version: 1, plan: ctxOf(first).plan } });
    expect(second.reviewId).not.toBe(first.reviewId);
    const log = (await rt.store.artifact(first.id, "logs/orchestrator.log"))!;
    expect(log).toMatch(/APPROVAL response=modify feedback="two dimensions are enough" modifications=".*\+ dimension: Mechanisms/);
    const done = await approve(second);
    expect(done.state).toEqual(["COMPLETED"]);
    expect(ctxOf(done).tasks.map((t) => t.id).slice(0, 5)).toEqual(["P1", "S1", "S2", "R1", "R2"]);
    expect((await reasons(first.id))[2]).toBe("PLANNING.approval>PLANNING.generating: User modifies the plan (re-plan)");
  });

  it("APPROVE with an edited plan runs the edited plan, not the proposed one", async () => {
    rt = await researchRuntime({ actors: { researchTask: scripted() as never } });
    const first = await startToApproval();
    const edited = smallPlan(TOPIC);
    await rt.engine.decide(first.reviewId!, { decision: "approve", data: { plan: edited } });
    const done = await rt.engine.waitFor(first.id, settled);
    expect(done.state).toEqual(["COMPLETED"]);
    const c = ctxOf(done);
    expect(c.plan!.dimensions).toEqual(["Mechanisms", "Limits"]);
    expect(c.planVersion).toBe(2);
    expect(c.revisions.at(-1)!.diff).toContain("+ dimension: Mechanisms");
    expect(c.tasks.map((t) => t.id).slice(0, 5)).toEqual(["P1", "S1", "S2", "R1", "R2"]);
    await expect(startToApproval().then((r) => rt!.engine.decide(r.reviewId!, { decision: "approve", data: { plan: { topic: "x", dimensions: [], tasks: [], estimatedIterations: 0 } } }))).rejects.toThrow(/invalid approve decision: plan\.dimensions/);
  });

  it("rejects a modified plan that breaks the schema, with a clear message", async () => {
    rt = await researchRuntime();
    const r = await startToApproval();
    await expect(rt.engine.decide(r.reviewId!, { decision: "modify", data: { plan: { topic: "x", dimensions: [], tasks: [], estimatedIterations: 0 } } })).rejects.toThrow(/invalid modify decision: plan\.dimensions/);
    await expect(rt.engine.decide(r.reviewId!, { decision: "reject" })).rejects.toThrow(/decision must be one of approve, modify, abort/);
  });

  it("ABORT from the plan review ends the run and keeps task.md", async () => {
    rt = await researchRuntime();
    const r = await startToApproval();
    await rt.engine.decide(r.reviewId!, { decision: "abort", feedback: "wrong topic" });
    const out = await rt.engine.waitFor(r.id, settled);
    expect(out.state).toEqual(["ABORTED"]);
    expect(out.status).toBe("aborted");
    expect(await rt.store.artifact(r.id, "task.md")).toContain(`mission_id: "DR-20261123-001"`);
    expect((await reasons(r.id)).at(-1)).toBe("PLANNING.approval>ABORTED: User abort (partial results kept)");
  });

  it("runs independent tasks concurrently as sub-agents, never more than the configured limit", async () => {
    const track = { now: 0, max: 0 };
    rt = await researchRuntime({ actors: { researchTask: scripted({ delayMs: 20, track }) as never, plan: (async () => ({ plan: wide(), missionId: "DR-20261123-001", rationale: "", adapter: "test", tokens: 0 })) as never } });
    const done = await approve(await startToApproval({ concurrency: 3 }));
    expect(done.state).toEqual(["COMPLETED"]);
    expect(track.max).toBe(3);
    // dependencies held: no R task started before its S task completed
    const log = (await rt.store.artifact(done.id, "logs/orchestrator.log"))!.split("\n");
    const at = (re: RegExp) => log.findIndex((l) => re.test(l));
    for (let i = 1; i <= 6; i++) expect(at(new RegExp(`DISPATCH task=R${i} `))).toBeGreaterThan(at(new RegExp(`RESULT task=S${i} `)));
  });

  it("retries a failed task with an alternative approach, then succeeds", async () => {
    const attempts: string[] = [];
    rt = await researchRuntime({
      actors: {
        plan: fixedPlan() as never,
        researchTask: scripted({ fail: (t, a) => (attempts.push(`${t.id}#${a}`), t.id === "R1" && a === 1 ? "reader timed out" : null) }) as never,
      },
    });
    const done = await approve(await startToApproval());
    expect(done.state).toEqual(["COMPLETED"]);
    expect(attempts).toEqual(expect.arrayContaining(["R1#1", "R1#2"]));
    const r1 = ctxOf(done).tasks.find((t) => t.id === "R1")!;
    expect(r1).toMatchObject({ status: "COMPLETED", attempts: 2 });
    const log = (await rt.store.artifact(done.id, "logs/orchestrator.log"))!;
    expect(log).toContain('ERROR type=task_failed task=R1 message="reader timed out" recovery="retry with an alternative approach"');
    expect(log).toMatch(/RESULT task=R1 .*approach="test: alternative query"/);
  });

  it("a non-critical task failing twice is marked FAILED and a compensating task takes its place", async () => {
    rt = await researchRuntime({ actors: { plan: fixedPlan() as never, researchTask: scripted({ fail: (t) => (t.id === "R2" ? "page unreadable" : null) }) as never } });
    const done = await approve(await startToApproval());
    expect(done.state).toEqual(["COMPLETED"]);
    const tasks = ctxOf(done).tasks;
    expect(tasks.find((t) => t.id === "R2")).toMatchObject({ status: "FAILED", error: "page unreadable" });
    const comp = tasks.find((t) => t.compensates === "R2")!;
    expect(comp).toBeTruthy();
    expect(comp.status).toBe("COMPLETED");
    expect(await rt.store.artifact(done.id, "logs/orchestrator.log")).toMatch(new RegExp(`task=R2 message="page unreadable" recovery="marked FAILED; compensating task ${comp.id} added"`));
  });

  it("a critical task failing twice escalates to the reviewer: RETRY runs it again, SKIP compensates", async () => {
    let heal = false;
    rt = await researchRuntime({ actors: { plan: fixedPlan() as never, researchTask: scripted({ fail: (t) => (t.id === "S1" && !heal ? "search engine down" : null) }) as never } });
    const esc = await approve(await startToApproval());
    expect(esc.state).toEqual(["RESEARCHING.escalated"]);
    expect(esc.status).toBe("waiting");
    const [review] = await rt.store.listReviews({ status: "pending", runId: esc.id });
    expect(review).toMatchObject({ kind: "escalation" });
    expect(review!.prompt).toContain("Critical task S1 failed: search engine down");
    expect((await reasons(esc.id)).at(-1)).toBe("RESEARCHING.working>RESEARCHING.escalated: Critical task failed: escalate to the user");

    heal = true;
    await rt.engine.decide(esc.reviewId!, { decision: "retry" });
    const done = await rt.engine.waitFor(esc.id, settled);
    expect(done.state).toEqual(["COMPLETED"]);
    expect(ctxOf(done).tasks.find((t) => t.id === "S1")).toMatchObject({ status: "COMPLETED" });
  });

  it("SKIP on an escalation adds a compensating task and carries on", async () => {
    rt = await researchRuntime({ actors: { plan: fixedPlan() as never, researchTask: scripted({ fail: (t) => (t.id === "S2" ? "blocked by robots.txt" : null) }) as never } });
    const esc = await approve(await startToApproval());
    expect(esc.state).toEqual(["RESEARCHING.escalated"]);
    await rt.engine.decide(esc.reviewId!, { decision: "skip", feedback: "find another way" });
    const done = await rt.engine.waitFor(esc.id, settled);
    expect(done.state).toEqual(["COMPLETED"]);
    const tasks = ctxOf(done).tasks;
    expect(tasks.find((t) => t.id === "S2")!.status).toBe("FAILED");
    expect(tasks.find((t) => t.compensates === "S2")!.status).toBe("COMPLETED");
    expect(await reasons(esc.id)).toContain("RESEARCHING.escalated>RESEARCHING.working: Skip it: add a compensating task");
  });

  it("asks the reviewer to check in every N iterations: CONTINUE resumes, SYNTHESIZE writes the report now", async () => {
    rt = await researchRuntime({ actors: { plan: fixedPlan() as never, researchTask: scripted() as never } });
    const first = await approve(await startToApproval({ checkinEvery: 2, concurrency: 1 }));
    expect(first.state).toEqual(["RESEARCHING.checkin"]);
    expect(ctxOf(first).iteration).toBe(2);
    const [review] = await rt.store.listReviews({ status: "pending", runId: first.id });
    expect(review).toMatchObject({ kind: "checkin" });
    expect(review!.prompt).toMatch(/^Check-in at iteration 2/);
    await rt.engine.decide(first.reviewId!, { decision: "continue" });
    const second = await rt.engine.waitFor(first.id, settled);
    expect(second.state).toEqual(["RESEARCHING.checkin"]);
    expect(ctxOf(second).iteration).toBe(4);
    await rt.engine.decide(second.reviewId!, { decision: "synthesize" });
    const done = await rt.engine.waitFor(first.id, settled);
    expect(done.state).toEqual(["COMPLETED"]);
    expect(ctxOf(done).tasks.some((t) => t.status !== "COMPLETED")).toBe(true); // synthesized early
    const path = await reasons(first.id);
    expect(path).toContain("RESEARCHING.checkin>RESEARCHING.working: Continue researching");
    expect(path).toContain("RESEARCHING.checkin>SYNTHESIZING: Synthesize now");
  });

  it("max_iterations forces SYNTHESIZING, or ERROR when nothing was found", async () => {
    rt = await researchRuntime({ actors: { plan: fixedPlan() as never, researchTask: scripted() as never } });
    const done = await approve(await startToApproval({ maxIterations: 3, concurrency: 1 }));
    expect(done.state).toEqual(["COMPLETED"]);
    expect(ctxOf(done).iteration).toBe(3);
    expect(await reasons(done.id)).toContain("RESEARCHING.working>SYNTHESIZING: max_iterations reached: forced to SYNTHESIZING");
    await rt.close();

    const empty = async (input: { task: Task; attempt: number }): Promise<TaskResult> => ({ taskId: input.task.id, attempt: input.attempt, approach: "test", query: "", sources: [], facts: [], notes: "", tokens: 0, toolsUsed: 1 });
    rt = await researchRuntime({ actors: { plan: fixedPlan() as never, researchTask: empty as never } });
    const err = await approve(await startToApproval({ maxIterations: 2 }));
    expect(err.state).toEqual(["ERROR"]);
    expect(ctxOf(err).error).toMatchObject({ state: "SYNTHESIZING", category: "BUSINESS" });
    expect(await reasons(err.id)).toContain("SYNTHESIZING>ERROR: Nothing was found to synthesize");
  });

  it("an unrecoverable error in PLANNING goes to ERROR and notifies the user; RETRY plans again", async () => {
    let broken = true;
    const real = fixedPlan();
    rt = await researchRuntime({ actors: { plan: (async (i: never, ctx: EffectContext) => (broken ? fail("planner crashed")(i, ctx) : real(i, ctx))) as never } });
    const { run } = await rt.engine.start("deep-research", { topic: TOPIC });
    const err = await rt.engine.waitFor(run.id, settled);
    expect(err.state).toEqual(["ERROR"]);
    expect(err.status).toBe("waiting");
    const [review] = await rt.store.listReviews({ status: "pending", runId: run.id });
    expect(review).toMatchObject({ kind: "intervention" });
    expect(review!.prompt).toContain("stopped in PLANNING: planner crashed");
    expect(await rt.store.artifact(run.id, "logs/orchestrator.log")).toMatch(/ERROR type=\w+ state=PLANNING message="planner crashed"/);
    broken = false;
    await rt.engine.decide(err.reviewId!, { decision: "retry" });
    expect((await rt.engine.waitFor(run.id, settled)).state).toEqual(["PLANNING.approval"]);
    expect(await reasons(run.id)).toContain("ERROR>PLANNING.generating: Retry planning");
  });

  it("REFLECTING adds Search tasks for gaps and C* tasks for conflicting numbers, then loops", async () => {
    rt = await researchRuntime({
      actors: {
        plan: fixedPlan() as never,
        researchTask: (async (input: { task: Task; attempt: number }): Promise<TaskResult> => {
          const t = input.task;
          const base = { taskId: t.id, attempt: input.attempt, approach: "test", query: "", notes: "", tokens: 1, toolsUsed: 1 };
          if (t.type === "Planning") return { ...base, sources: [], facts: [] };
          const src = [{ url: `https://example.org/${t.id}`, title: t.id, type: "HTML", raw: "" }];
          // the two Mechanisms tasks disagree about the same number; Limits finds nothing at first
          if (t.id === "S1") return { ...base, sources: src, facts: [{ statement: "The execution timeout default lasts 10 minutes per run.", source: 0, confidence: "Medium" }] };
          if (t.id === "R1") return { ...base, sources: src, facts: [{ statement: "The execution timeout default lasts 15 minutes per run.", source: 0, confidence: "Medium" }] };
          if (t.dimension === "Limits" && !t.id.match(/^S[3-9]/)) return { ...base, sources: src, facts: [] };
          return { ...base, sources: src, facts: [{ statement: `${t.id} adds evidence on ${t.dimension ?? "the conflict"}.`, source: 0, confidence: "Low" }, { statement: `${t.id} adds more on ${t.dimension ?? "it"}.`, source: 0, confidence: "Low" }] };
        }) as never,
      },
    });
    const done = await approve(await startToApproval());
    expect(done.state).toEqual(["COMPLETED"]);
    const c = ctxOf(done);
    const first = c.reflections[0]!;
    expect(first.gaps.map((g) => g.dimension)).toContain("Limits");
    expect(first.conflicts).toHaveLength(1);
    expect(first.conflicts[0]!.detail).toMatch(/says 10.*says 15/);
    expect(c.tasks.some((t) => /^C\d+$/.test(t.id) && t.type === "Conflict")).toBe(true);
    expect(c.tasks.some((t) => t.id === "S3" && t.dimension === "Limits")).toBe(true);
    const path = await reasons(done.id);
    expect(path).toContain("REFLECTING>RESEARCHING.working: Gaps or conflicts detected");
    expect(await rt.store.artifact(done.id, "logs/orchestrator.log")).toMatch(/TASK_ADDED task=C1 type=Conflict/);
  });

  it("a user abort while researching keeps the facts and sources gathered so far", async () => {
    rt = await researchRuntime({ actors: { plan: fixedPlan() as never, researchTask: scripted({ delayMs: 30 }) as never } });
    const r = await startToApproval({ concurrency: 1 });
    await rt.engine.decide(r.reviewId!, { decision: "approve" });
    await rt.engine.waitFor(r.id, (v) => ctxOf(v).facts.length >= 1);
    await rt.engine.abort(r.id, "enough");
    const out = await rt.engine.waitFor(r.id, settled);
    expect(out.state).toEqual(["ABORTED"]);
    expect(out.status).toBe("aborted");
    expect(ctxOf(out).facts.length).toBeGreaterThanOrEqual(1);
    expect(await rt.store.artifact(r.id, "task.md")).toContain("Fact-001");
    expect((await reasons(r.id)).at(-1)).toMatch(/^RESEARCHING\.working>ABORTED: User abort/);
  });

  it("resumes a mission after a restart: the plan review survives and research continues", async () => {
    const { tempDbUrl } = await import("../../../test/helpers");
    const url = tempDbUrl("dr");
    rt = await researchRuntime({ url, actors: { plan: fixedPlan() as never, researchTask: scripted() as never } });
    const r = await startToApproval();
    await rt.close();
    rt = await researchRuntime({ url, actors: { plan: fixedPlan() as never, researchTask: scripted() as never } });
    const again = await rt.engine.getRun(r.id);
    expect(again.state).toEqual(["PLANNING.approval"]);
    expect(again.reviewId).toBe(r.reviewId);
    const done = await approve(again);
    expect(done.state).toEqual(["COMPLETED"]);
  });
});

function fixedPlan() {
  return async (_input: unknown, _ctx: EffectContext) => ({ plan: smallPlan(TOPIC), missionId: "DR-20261123-001", rationale: "test plan", adapter: "test", tokens: 5 });
}

function wide(): Plan {
  const tasks: Task[] = [{ id: "P1", type: "Planning", description: "decompose", status: "PENDING", dependsOn: [] }];
  const dimensions: string[] = [];
  for (let i = 1; i <= 6; i++) {
    dimensions.push(`D${i}`);
    tasks.push({ id: `S${i}`, type: "Search", description: `search ${i}`, status: "PENDING", dependsOn: ["P1"], query: `q${i}`, dimension: `D${i}`, critical: true });
    tasks.push({ id: `R${i}`, type: "Read", description: `read ${i}`, status: "PENDING", dependsOn: [`S${i}`], query: `r${i}`, dimension: `D${i}` });
  }
  return { topic: TOPIC, dimensions, tasks, estimatedIterations: tasks.length };
}


describe("deep-research unrecoverable errors and plan validation", () => {
  it("a sub-agent hitting a resource limit moves the run to ERROR; RETRY resumes research", async () => {
    let limited = true;
    const base = scripted();
    rt = await researchRuntime({
      actors: {
        plan: fixedPlan() as never,
        researchTask: (async (input: { task: Task; attempt: number }, ctx: EffectContext) => {
          if (input.task.id === "S2" && limited) throw new EffectError("token budget exhausted", { category: "RESOURCE_LIMIT" });
          return base(input, ctx);
        }) as never,
      },
    });
    const err = await approve(await startToApproval({ concurrency: 1 }));
    expect(err.state).toEqual(["ERROR"]);
    expect(ctxOf(err).error).toMatchObject({ state: "RESEARCHING", category: "RESOURCE_LIMIT", message: "S2: token budget exhausted" });
    expect(await reasons(err.id)).toContain("RESEARCHING.working>ERROR: Unrecoverable error");
    const [review] = await rt.store.listReviews({ status: "pending", runId: err.id });
    expect(review).toMatchObject({ kind: "intervention" });
    limited = false;
    await rt.engine.decide(err.reviewId!, { decision: "retry" });
    const done = await rt.engine.waitFor(err.id, settled);
    expect(done.state).toEqual(["COMPLETED"]);
    expect(ctxOf(done).tasks.find((t) => t.id === "S2")!.status).toBe("COMPLETED");
  });

  it("refuses an edited plan that is not a DAG (unknown dependency, cycle, duplicate id)", async () => {
    rt = await researchRuntime();
    const r = await startToApproval();
    const plan = smallPlan(TOPIC);
    const unknown = { ...plan, tasks: plan.tasks.map((t) => (t.id === "R1" ? { ...t, dependsOn: ["S9"] } : t)) };
    await expect(rt.engine.decide(r.reviewId!, { decision: "modify", data: { plan: unknown } })).rejects.toThrow(/R1 depends on unknown task S9/);
    const cycle = { ...plan, tasks: plan.tasks.map((t) => (t.id === "S1" ? { ...t, dependsOn: ["R1"] } : t)) };
    await expect(rt.engine.decide(r.reviewId!, { decision: "modify", data: { plan: cycle } })).rejects.toThrow(/cycle: /);
    const dup = { ...plan, tasks: [...plan.tasks, plan.tasks[1]!] };
    await expect(rt.engine.decide(r.reviewId!, { decision: "modify", data: { plan: dup } })).rejects.toThrow(/duplicate task id S1/);
    expect((await rt.engine.getRun(r.id)).state).toEqual(["PLANNING.approval"]);
  });
});
