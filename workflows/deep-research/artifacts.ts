// The files of a deep-research run, written in the same commit as the step that changed them:
// task.md and report.md (kept current), logs/orchestrator.log (append-only audit trail with
// every event deep-research's audit table requires), orchestrator.md (the reasoning stream) and the
// raw file of each source under assets/.
import type { ArtifactWrite, TransitionRow } from "../../lib/engine/store/types";
import { renderTaskMd } from "./research/taskmd";
import { MISSION_STATUSES, type MissionStatus, type Task } from "./research/types";
import type { ArtifactStep } from "../../lib/machines/types";
import type { ResearchContext, TaskResult } from "./types";

const AGENT: Record<Task["type"], string> = { Planning: "planner", Search: "search-agent", Read: "reader-agent", Conflict: "conflict-resolver" };

function missionStatus(states: string[]): MissionStatus | null {
  const top = states[0]?.split(".")[0];
  return (MISSION_STATUSES as readonly string[]).includes(top ?? "") ? (top as MissionStatus) : null;
}

const q = (s: string) => JSON.stringify(s);

export function taskFile(c: ResearchContext) {
  return {
    meta: {
      mission_id: c.missionId || "DR-pending",
      created_at: c.createdAt || "",
      status: c.status,
      topic: c.topic,
      iteration: c.iteration,
      max_iterations: c.config.maxIterations,
      cost_tracking: { total_tokens: c.tokens, tools_used: c.toolsUsed },
    },
    dimensions: c.plan?.dimensions ?? [],
    tasks: c.tasks.length ? c.tasks : (c.plan?.tasks ?? []),
    facts: c.facts,
    sources: c.sources,
  };
}

function resultOf(t: TransitionRow): TaskResult | null {
  const out = (t.payload as { output?: TaskResult } | null)?.output;
  return out && typeof out.taskId === "string" ? out : null;
}

export function researchArtifacts(step: ArtifactStep): ArtifactWrite[] {
  const before = (step.before ?? null) as ResearchContext | null;
  const after = step.after as ResearchContext;
  if (!after || typeof after !== "object" || !("tasks" in after)) return [];
  const at = new Date(step.now).toISOString();
  const log: string[] = [];
  const md: string[] = [];
  const writes: ArtifactWrite[] = [];

  // the audit lines of one step, in the order a reader expects: what the user decided and what
  // arrived first, then the status change it caused, then what was dispatched next
  const transitions: string[] = [];
  for (const t of step.transitions) {
    const from = missionStatus(t.from);
    const to = missionStatus(t.to);
    if (t.event === "xstate.init") {
      log.push(`${at} START topic=${q(after.topic)} max_iterations=${after.config.maxIterations} concurrency=${after.config.concurrency}`);
      md.push(`Mission started: research "${after.topic}".`);
    } else if (from !== to && to) transitions.push(`${at} TRANSITION from=${from ?? t.from.join(",")} to=${to} reason=${q(t.reason)}`);
    else if (!to && t.to.includes("ABORTED")) transitions.push(`${at} TRANSITION from=${from} to=ABORTED reason=${q(t.reason)}`);
    if (t.event === "APPROVE" || t.event === "MODIFY") {
      const revision = after.revisions.at(-1);
      const modifications = t.event === "MODIFY" ? ` modifications=${q(revision?.diff || "(feedback only)")}` : "";
      log.push(`${at} APPROVAL response=${t.event === "APPROVE" ? "approve" : "modify"} feedback=${q(String((t.payload as { feedback?: string })?.feedback ?? ""))}${modifications}`);
      md.push(t.event === "APPROVE" ? `- Plan v${after.planVersion} approved; research starts with ${after.tasks.length} tasks.` : `- The reviewer asked for changes to plan v${after.planVersion}; re-planning with their edits.`);
    }
  }

  // plan generation
  if (after.plan && after.planVersion !== (before?.planVersion ?? 0)) {
    log.push(`${at} PLAN version=${after.planVersion} topic=${q(after.topic)} dimensions=${q(after.plan.dimensions.join("; "))} tasks=${after.plan.tasks.length} estimated_iterations=${after.plan.estimatedIterations}`);
    md.push(`\n### Plan v${after.planVersion}\n`, `Dimensions: ${after.plan.dimensions.join(", ")}.`, `Tasks: ${after.plan.tasks.map((t) => `${t.id} (${t.type})`).join(", ")}; about ${after.plan.estimatedIterations} iterations.`);
  }

  // sub-agent results and failures (a retried task may be dispatched again in the same step)
  const was = new Map((before?.tasks ?? []).map((t) => [t.id, t]));
  const results = new Map(step.transitions.map(resultOf).filter((r): r is TaskResult => !!r).map((r) => [r.taskId, r]));
  const newSources = after.sources.filter((s) => !(before?.sources ?? []).some((b) => b.id === s.id));
  const dispatches: string[] = [];
  for (const t of after.tasks) {
    const prev = was.get(t.id);
    const retried = prev?.status === "IN_PROGRESS" && (t.attempts ?? 0) > (prev.attempts ?? 0);
    if (t.status === "COMPLETED" && prev?.status === "IN_PROGRESS") {
      const r = results.get(t.id);
      const facts = after.facts.filter((f) => f.task === t.id && !(before?.facts ?? []).some((b) => b.id === f.id));
      const files = newSources.filter((s) => r?.sources.some((x) => x.url === s.url)).map((s) => s.localPath);
      log.push(`${at} RESULT task=${t.id} facts=${facts.length} sources=${r?.sources.length ?? 0} files=${q(files.join(","))} approach=${q(r?.approach ?? "")}`);
      md.push(`- ${t.id} (${AGENT[t.type]}): ${facts.length} new fact(s)${r?.notes ? ` — ${r.notes}` : ""}.`);
    }
    if (prev?.status === "IN_PROGRESS" && (t.status === "PENDING" || retried)) {
      log.push(`${at} ERROR type=task_failed task=${t.id} message=${q(t.error ?? "")} recovery="retry with an alternative approach"`);
      md.push(`- ${t.id} failed (${t.error}); retrying with an alternative approach.`);
    }
    if (prev?.status === "IN_PROGRESS" && t.status === "FAILED") {
      const comp = after.tasks.find((x) => x.compensates === t.id);
      const recovery = comp ? `marked FAILED; compensating task ${comp.id} added` : after.escalation?.taskId === t.id ? "marked FAILED; escalated to the user (critical task)" : "marked FAILED";
      log.push(`${at} ERROR type=task_failed task=${t.id} message=${q(t.error ?? "")} recovery=${q(recovery)}`);
      md.push(`- ${t.id} failed (${t.error}); ${recovery}.`);
    }
    if (t.status === "IN_PROGRESS" && (prev?.status !== "IN_PROGRESS" || retried)) {
      dispatches.push(`${at} DISPATCH task=${t.id} agent=${AGENT[t.type]} params=${JSON.stringify({ query: t.query ?? t.description, attempt: t.attempts ?? 1, dimension: t.dimension ?? null })}`);
    }
  }

  // reflection, and the tasks it (or a compensation) added
  if (after.reflections.length > (before?.reflections.length ?? 0)) {
    const r = after.reflections.at(-1)!;
    log.push(`${at} REFLECTION round=${r.round} gaps=${r.gaps.length} conflicts=${r.conflicts.length}`);
    md.push(`\n### Reflection ${r.round}\n`, r.notes, ...r.gaps.map((g) => `- Gap in ${g.dimension}: ${g.reason}`), ...r.conflicts.map((k) => `- Conflict on ${k.subject}: ${k.detail} (${k.facts.join(", ")})`));
  }
  for (const t of after.tasks) if (!was.has(t.id) && before && before.tasks.length > 0) log.push(`${at} TASK_ADDED task=${t.id} type=${t.type} description=${q(t.description)}`);
  if (after.recoveries > (before?.recoveries ?? 0)) {
    log.push(`${at} RECOVERY type=state_corruption action=${q(`rolled the DAG back to the checkpoint of iteration ${after.checkpoint?.iteration}`)}`);
  }
  log.push(...transitions, ...dispatches);

  // progress every N iterations
  const every = after.config.progressEvery;
  if (Math.floor(after.iteration / every) > Math.floor((before?.iteration ?? 0) / every)) {
    const done = after.tasks.filter((t) => t.status === "COMPLETED").length;
    log.push(`${at} PROGRESS iteration=${after.iteration}/${after.config.maxIterations} tasks_done=${done}/${after.tasks.length} facts=${after.facts.length} sources=${after.sources.length}`);
    md.push(`\n**Progress at iteration ${after.iteration}:** ${done} of ${after.tasks.length} tasks done, ${after.facts.length} facts from ${after.sources.length} sources.`);
  }

  // errors
  if (after.error && (!before?.error || before.error.message !== after.error.message)) {
    log.push(`${at} ERROR type=${after.error.category} state=${after.error.state} message=${q(after.error.message)} recovery="status ERROR; awaiting user intervention"`);
  }

  // completion
  if (after.status === "COMPLETED" && before?.status !== "COMPLETED") {
    log.push(`${at} COMPLETE total_iterations=${after.iteration} sources_used=${after.sources.length} facts_collected=${after.facts.length} tokens=${after.tokens}`);
    md.push(`\n### Completed\n`, `report.md written by ${after.reportAdapter} from ${after.facts.length} facts and ${after.sources.length} sources after ${after.iteration} iterations.`);
  }

  if (log.length) writes.push({ name: "logs/orchestrator.log", mode: "append", content: log.join("\n") + "\n" });
  if (md.length) writes.push({ name: "orchestrator.md", mode: "append", content: (step.transitions.some((t) => t.event === "xstate.init") ? `# Orchestrator reasoning: ${after.topic}\n\n` : "") + md.join("\n") + "\n" });
  writes.push({ name: "task.md", mode: "put", content: renderTaskMd(taskFile(after)) });
  if (after.report && after.report !== before?.report) writes.push({ name: "report.md", mode: "put", content: after.report });
  for (const s of newSources) {
    const raw = [...results.values()].flatMap((r) => r.sources).find((x) => x.url === s.url)?.raw;
    if (raw) writes.push({ name: s.localPath, mode: "put", content: raw });
  }
  return writes;
}
