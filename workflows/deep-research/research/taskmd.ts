// task.md: the mission file of deep-research (workflows/deep-research/guide.md). YAML frontmatter exactly as the seed prints it, the
// task DAG as checkbox lines, the knowledge graph and the source registry. `render` and
// `parse` round-trip.
import { parse as parseYaml, stringify } from "yaml";
import type { Fact, MissionMeta, Source, Task, TaskStatus, TaskType } from "./types";

export interface TaskFile {
  meta: MissionMeta;
  dimensions: string[];
  tasks: Task[];
  facts: Fact[];
  sources: Source[];
}

const TYPES: TaskType[] = ["Planning", "Search", "Read", "Conflict"];
const STATUSES: TaskStatus[] = ["PENDING", "BLOCKED", "IN_PROGRESS", "COMPLETED", "FAILED"];

function frontmatter(meta: MissionMeta): string {
  const body = stringify(
    {
      mission_id: meta.mission_id,
      created_at: meta.created_at,
      status: meta.status,
      topic: meta.topic,
      iteration: meta.iteration,
      max_iterations: meta.max_iterations,
      cost_tracking: { total_tokens: meta.cost_tracking.total_tokens, tools_used: meta.cost_tracking.tools_used },
    },
    { defaultStringType: "QUOTE_DOUBLE", defaultKeyType: "PLAIN", lineWidth: 0 },
  );
  return `---\n${body}---\n`;
}

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

export function renderTaskMd(f: TaskFile): string {
  const out: string[] = [frontmatter(f.meta), `# ${oneLine(f.meta.topic)}`, ""];
  out.push("## Dimensions", "");
  for (const d of f.dimensions) out.push(`- ${oneLine(d)}`);
  out.push("", "## Task DAG", "");
  for (const t of f.tasks) {
    out.push(`- [${t.status === "COMPLETED" ? "x" : " "}] ${t.id}: ${t.type}: ${oneLine(t.description).replace(/\(Status:/g, "(status:")} (Status: ${t.status}, DependsOn: ${t.dependsOn.join(", ")})`);
  }
  out.push("", "## Knowledge Graph", "");
  for (const fact of f.facts) {
    out.push(`[${fact.id}] ${oneLine(fact.statement)}`, `- Source: [${fact.source}]`, `- Confidence: ${fact.confidence}`, `- Raw_File: ${fact.rawFile}`, `- Extracted: ${fact.extracted}`, "");
  }
  out.push("## Source Registry", "", "| ID | URL | Title | Type | Access Date | Local Path |", "|---|---|---|---|---|---|");
  const cell = (s: string) => oneLine(s).replace(/\|/g, "\\|");
  for (const s of f.sources) out.push(`| ${s.id} | ${cell(s.url)} | ${cell(JSON.stringify(s.title))} | ${cell(s.type)} | ${s.accessDate} | ${cell(s.localPath)} |`);
  out.push("");
  return out.join("\n");
}

export class TaskMdError extends Error {}

export function parseTaskMd(text: string): TaskFile {
  const m = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!m) throw new TaskMdError("task.md has no YAML frontmatter");
  const y = parseYaml(m[1]) as MissionMeta;
  const meta: MissionMeta = {
    mission_id: String(y.mission_id),
    created_at: String(y.created_at),
    status: y.status,
    topic: String(y.topic),
    iteration: Number(y.iteration),
    max_iterations: Number(y.max_iterations),
    cost_tracking: { total_tokens: Number(y.cost_tracking?.total_tokens ?? 0), tools_used: Number(y.cost_tracking?.tools_used ?? 0) },
  };
  const body = text.slice(m[0].length);
  const section = (name: string) => {
    const at = body.indexOf(`## ${name}\n`);
    if (at < 0) return "";
    const rest = body.slice(at + name.length + 4);
    const end = rest.search(/^## /m);
    return end < 0 ? rest : rest.slice(0, end);
  };
  const dimensions = section("Dimensions")
    .split("\n")
    .filter((l) => l.startsWith("- "))
    .map((l) => l.slice(2));
  const tasks: Task[] = [];
  for (const line of section("Task DAG").split("\n")) {
    const t = /^- \[( |x)\] ([A-Z]\d+): (\w+): (.*) \(Status: (\w+), DependsOn: ([^)]*)\)$/.exec(line);
    if (!t) continue;
    if (!TYPES.includes(t[3] as TaskType)) throw new TaskMdError(`unknown task type ${t[3]} in: ${line}`);
    if (!STATUSES.includes(t[5] as TaskStatus)) throw new TaskMdError(`unknown status ${t[5]} in: ${line}`);
    tasks.push({ id: t[2], type: t[3] as TaskType, description: t[4], status: t[5] as TaskStatus, dependsOn: t[6].split(",").map((s) => s.trim()).filter(Boolean) });
  }
  const facts: Fact[] = [];
  const kg = section("Knowledge Graph").split("\n");
  for (let i = 0; i < kg.length; i++) {
    const head = /^\[(Fact-\d+)\] (.*)$/.exec(kg[i]);
    if (!head) continue;
    const field = (name: string) => {
      const l = kg.slice(i + 1, i + 5).find((x) => x.startsWith(`- ${name}: `));
      return l ? l.slice(name.length + 4) : "";
    };
    facts.push({ id: head[1], statement: head[2], source: field("Source").replace(/^\[|\]$/g, ""), confidence: field("Confidence") as Fact["confidence"], rawFile: field("Raw_File"), extracted: field("Extracted"), task: "" });
  }
  const sources: Source[] = [];
  for (const line of section("Source Registry").split("\n")) {
    if (!/^\| S\d+ /.test(line)) continue;
    const cells = line
      .slice(2, -2)
      .split(/ (?<!\\)\| /)
      .map((c) => c.replace(/\\\|/g, "|"));
    sources.push({ id: cells[0], url: cells[1], title: JSON.parse(cells[2]), type: cells[3], accessDate: cells[4], localPath: cells[5] });
  }
  return { meta, dimensions, tasks, facts, sources };
}
