// Reading and checking a user-defined workflow: JSON or YAML (both through the yaml library,
// which keeps each node's position, so every issue carries its line) or Mermaid (lib/flows/
// mermaid.ts). The shape is checked with zod, then the meaning: unknown stages and targets, no
// initial stage, composites without a start, unreachable stages, validators naming nothing.
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from "yaml";
import { z } from "zod";
import { forkPlan } from "./forks";
import { parseMermaid } from "./mermaid-read";
import { StepsSchema } from "../steps/schema";
import { checkSteps } from "../steps/check";
import { checkRunKeys } from "./inputs";
import { flowWarnings } from "./warnings";
import { childrenOf, edgeKey, own, type FlowConfig, type FlowIssue, type ParsedFlow } from "./types";

export const FLOW_FORMATS = ["json", "yaml", "mermaid"] as const;
export type FlowFormat = (typeof FLOW_FORMATS)[number];

/** a stage name: any text Mermaid can carry as a state id (written with entity codes where needed) */
const Name = z
  .string()
  .min(1, "a stage name cannot be empty")
  .max(80)
  .refine((s) => s.trim() === s && s !== "__proto__" && s !== "[*]" && !/[\p{Cc}]/u.test(s), "must be a stage name: no leading or trailing spaces, no control characters, not [*] or __proto__");
const Tool = z.string().min(1).max(80);
const Seconds = z.number().min(0).max(86_400);

const Validator = z.discriminatedUnion("type", [
  z.object({ type: z.literal("min_tool_calls"), target: Name, min: z.number().int().min(1).max(10_000) }).strict(),
  z.object({ type: z.literal("require_visited"), target: Name, stage: Name }).strict(),
  z.object({ type: z.literal("max_visits"), target: Name, max: z.number().int().min(1).max(10_000) }).strict(),
  z.object({ type: z.literal("min_dwell"), stage: Name, seconds: Seconds }).strict(),
]);

/** the most stages a definition may have, in any format */
export const MAX_STAGES = 500;
/** composite stages inside composite stages: at most this many levels */
export const MAX_NESTING = 24;
/** the most transitions (stage → stage moves) a definition may have, in any format: more cannot be laid out or read */
export const MAX_TRANSITIONS = 1_000;

export const FlowConfigSchema = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9-]{1,62}$/, "must be 2–63 lower-case letters, digits or dashes, starting with a letter"),
    title: z.string().max(200).optional(),
    description: z.string().max(5_000).optional(),
    stages: z.array(Name).min(1, "needs at least one stage").max(MAX_STAGES),
    initial_stage: z.string({ error: "is missing: name the stage a run starts in" }),
    implicit_start: z.boolean().optional(),
    transitions: z.record(z.string(), z.array(Name).max(500)),
    stage_tools: z.record(z.string(), z.array(Tool).max(100)).optional(),
    keywords: z.record(z.string(), z.array(z.string().min(1).max(80)).max(200)).optional(),
    cooldown_seconds: Seconds.optional(),
    backward_threshold: z.number().min(0).max(1).optional(),
    detection_threshold: z.number().min(0).max(1).optional(),
    validators: z.array(Validator).max(100).optional(),
    parents: z.record(z.string(), Name).optional(),
    initials: z.record(z.string(), z.array(Name).min(1).max(50)).optional(),
    ends: z.array(Name).max(500).optional(),
    choices: z.array(Name).max(500).optional(),
    forks: z.array(Name).max(500).optional(),
    joins: z.array(Name).max(500).optional(),
    labels: z.record(z.string(), z.string().max(500)).optional(),
    notes: z.record(z.string(), z.string().max(5_000)).optional(),
    steps: StepsSchema.optional(),
    inputs: z.record(z.string(), z.unknown()).optional(),
    run_name: z.string().trim().min(1).max(500).optional(),
    result: z.string().trim().min(1).max(20_000).optional(),
  })
  .strict();

/** warnings: what is kept but worth knowing (in Mermaid, stages no run can reach) */
/** unnamed: a Mermaid diagram with no id and no title, and none given (saving it asks for one: checkForSave) */
export type FlowResult = { ok: true; config: FlowConfig; format: FlowFormat; warnings: FlowIssue[]; unnamed?: boolean } | { ok: false; issues: FlowIssue[]; format: FlowFormat };

/**
 * A cheap look at a Mermaid diagram before parsing it: composites (`{` … `}`) opened more than
 * MAX_NESTING deep are refused at once (parsing thousands of levels costs seconds). Braces inside
 * quotes or comments can only make it count deeper than Mermaid does, never shallower, and the
 * parse that follows checks the real nesting anyway.
 */
function braceTooDeep(source: string): FlowIssue | null {
  let depth = 0;
  let line = 1;
  for (let i = 0; i < source.length; i++) {
    const ch = source.charCodeAt(i);
    if (ch === 10) line++;
    else if (ch === 123 && ++depth > MAX_NESTING + 1) return { message: `composites are nested more than ${MAX_NESTING} levels deep (at most ${MAX_NESTING} levels)`, line };
    else if (ch === 125 && depth > 0) depth--;
  }
  return null;
}

/**
 * Parse and check a definition written in `format`. `env`: this server's environment, for the
 * warning about secrets that are not set (left out in the browser).
 */
export function checkFlowSource(format: FlowFormat, source: string, opts: { id?: string; env?: Record<string, string | undefined> } = {}): FlowResult {
  if (format === "mermaid") {
    const deep = braceTooDeep(source);
    if (deep) return { ok: false, issues: [deep], format };
  }
  const parsed = format === "mermaid" ? parseMermaid(source, opts) : readData(source, opts);
  if (parsed.issues.length) return { ok: false, issues: sortIssues(parsed.issues), format };
  // JSON and YAML meet the cap in FlowConfigSchema; a Mermaid diagram's stages are counted here
  if (parsed.config.stages.length > MAX_STAGES) return { ok: false, issues: [{ message: `too many stages: ${parsed.config.stages.length} (at most ${MAX_STAGES})`, line: 1 }], format };
  const moves = Object.values(parsed.config.transitions).reduce((n, t) => n + t.length, 0);
  if (moves > MAX_TRANSITIONS) return { ok: false, issues: [{ message: `too many transitions: ${moves.toLocaleString("en-US")} (at most ${MAX_TRANSITIONS.toLocaleString("en-US")} per workflow; split it into smaller workflows)`, line: 1 }], format };
  const issues = checkFlow(parsed.config, parsed.lines, { unreachable: format !== "mermaid" });
  if (issues.length) return { ok: false, issues: sortIssues(issues), format };
  // Mermaid draws disconnected parts; a stage no run reaches is kept, with a warning
  const warnings = format === "mermaid" ? unreachableIssues(parsed.config, parsed.lines) : [];
  // valid, but runs would wait for nobody (lib/flows/warnings.ts)
  warnings.push(...flowWarnings(parsed.config, parsed.lines, opts.env));
  return { ok: true, config: parsed.config, format, warnings: sortIssues(warnings), ...(parsed.unnamed ? { unnamed: true } : {}) };
}

export const UNNAMED_ISSUE = 'the diagram has no id and no title: say which workflow it is (send "id" with it, or write "switchyard: { id: my-workflow }" or a "title" in its front matter)';

/**
 * The checks of a definition about to be saved (POST /api/workflows, and `npm run validate`):
 * checkFlowSource's, and a Mermaid diagram that does not say which workflow it is is refused
 * rather than saved as the next version of whatever was imported untitled before.
 */
export function checkForSave(format: FlowFormat, source: string, opts: { id?: string; env?: Record<string, string | undefined> } = {}): FlowResult {
  const r = checkFlowSource(format, source, opts);
  if (r.ok && r.unnamed) return { ok: false, issues: [{ message: UNNAMED_ISSUE, line: 1 }], format };
  return r;
}

function sortIssues(issues: FlowIssue[]): FlowIssue[] {
  return [...issues].sort((a, b) => (a.line ?? 1e9) - (b.line ?? 1e9));
}

/** JSON or YAML → ParsedFlow, with lines taken from the document's nodes. */
function readData(source: string, opts: { id?: string }): ParsedFlow {
  const counter = new LineCounter();
  const doc = parseDocument(source, { lineCounter: counter, uniqueKeys: true, prettyErrors: false });
  const lineOf = (offset: number | undefined) => (offset === undefined ? undefined : counter.linePos(offset).line);
  const empty: FlowConfig = { id: opts.id ?? "", stages: [], initial_stage: "", transitions: {} };
  const syntax = [...doc.errors, ...doc.warnings.filter((w) => w.code === "DUPLICATE_KEY")];
  if (syntax.length) return { config: empty, lines: {}, arrows: 0, issues: syntax.map((e) => ({ message: e.message.split("\n")[0]!, line: lineOf(e.pos[0]) })) };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 50 });
  } catch (e) {
    // an alias to no anchor, or one expanding past maxAliasCount
    return { config: empty, lines: {}, arrows: 0, issues: [{ message: (e instanceof Error ? e.message : String(e)).split("\n")[0]!, line: 1 }] };
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) return { config: empty, lines: {}, arrows: 0, issues: [{ message: "the definition must be an object (stages, initial_stage, transitions …)", line: 1 }] };
  const raw = { ...(data as Record<string, unknown>) };
  if (opts.id && raw.id === undefined) raw.id = opts.id;
  const shape = FlowConfigSchema.safeParse(raw);
  const lines = nodeLines(doc, lineOf);
  if (!shape.success) {
    return {
      config: empty,
      lines,
      arrows: 0,
      issues: shape.error.issues.map((i) => {
        const path = i.path.map(String);
        return { message: `${path.join(".") || "definition"}: ${i.message}`, path: path.join("."), line: lineAt(doc, path, lineOf) };
      }),
    };
  }
  const config = shape.data as FlowConfig;
  const arrows = Object.values(config.transitions).reduce((n, t) => n + t.length, 0);
  return { config, lines, arrows, issues: [] };
}

function lineAt(doc: Document, path: string[], lineOf: (o: number | undefined) => number | undefined): number | undefined {
  for (let n = path.length; n >= 0; n--) {
    const node = doc.getIn(path.slice(0, n).map((p) => (/^\d+$/.test(p) ? Number(p) : p)), true) as { range?: [number, number, number] } | undefined;
    if (node && typeof node === "object" && node.range) return lineOf(node.range[0]);
  }
  return undefined;
}

/** stage → line of its entry in `stages`; "A -> B" → line of B in transitions.A */
function nodeLines(doc: Document, lineOf: (o: number | undefined) => number | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  const put = (key: string, offset: number | undefined) => {
    const line = lineOf(offset);
    if (line !== undefined && out[key] === undefined) out[key] = line;
  };
  const stages = doc.get("stages", true);
  if (isSeq(stages)) for (const item of stages.items) if (isScalar(item)) put(String(item.value), item.range?.[0]);
  const transitions = doc.get("transitions", true);
  if (isMap(transitions)) {
    for (const pair of transitions.items) {
      if (!isScalar(pair.key)) continue;
      const from = String(pair.key.value);
      put(`${from} ->`, pair.key.range?.[0]);
      if (isSeq(pair.value)) for (const t of pair.value.items) if (isScalar(t)) put(edgeKey(from, String(t.value)), t.range?.[0]);
    }
  }
  // steps.<STAGE>.<field>… → the line of that key (issues in steps name their path)
  const walk = (node: unknown, path: string, depth: number) => {
    if (isSeq(node) && depth <= 5) node.items.forEach((item, i) => (put(`${path}.${i}`, (item as { range?: [number] }).range?.[0]), walk(item, `${path}.${i}`, depth + 1)));
    if (!isMap(node) || depth > 5) return;
    for (const pair of node.items) {
      if (!isScalar(pair.key)) continue;
      const at = `${path}.${String(pair.key.value)}`;
      put(at, pair.key.range?.[0]);
      walk(pair.value, at, depth + 1);
    }
  };
  walk(doc.get("steps", true), "steps", 0);
  walk(doc.get("inputs", true), "inputs", 3);
  for (const key of ["initial_stage", "inputs", "run_name", "result"]) {
    const node = doc.get(key, true) as { range?: [number] } | undefined;
    if (node && typeof node === "object" && node.range) put(key, node.range[0]);
  }
  return out;
}

/** The meaning of a well-shaped config: every name known, a start, everything reachable. */
export function checkFlow(c: FlowConfig, lines: Record<string, number> = {}, opts: { unreachable?: boolean } = {}): FlowIssue[] {
  const issues: FlowIssue[] = [];
  const at = (key: string) => own(lines, key);
  const known = new Set(c.stages);
  const seen = new Set<string>();
  for (const s of c.stages) {
    if (seen.has(s)) issues.push({ message: `stage ${s} is listed twice`, line: at(s) });
    seen.add(s);
  }
  const unknown = (name: string, where: string, line?: number) => {
    if (!known.has(name)) issues.push({ message: `${where}: unknown stage "${name}"`, line });
  };
  if (!c.initial_stage) issues.push({ message: "no initial stage: set initial_stage (in Mermaid, `[*] --> FIRST`)", line: at("initial_stage") ?? 1 });
  else unknown(c.initial_stage, "initial_stage", at("initial_stage"));
  for (const [from, targets] of Object.entries(c.transitions)) {
    unknown(from, `transitions.${from}`, at(`${from} ->`));
    for (const to of targets) unknown(to, `transition ${from} -> ${to}`, at(edgeKey(from, to)) ?? at(`${from} ->`));
  }
  for (const [field, rec] of [["stage_tools", c.stage_tools], ["keywords", c.keywords], ["notes", c.notes], ["initials", c.initials]] as const) {
    for (const key of Object.keys(rec ?? {})) unknown(key, field, at(key));
  }
  const parents = c.parents ?? {};
  const parentOf = (s: string) => own(parents, s);
  let tooDeep = false;
  for (const [child, parent] of Object.entries(parents)) {
    unknown(child, "parents", at(child));
    unknown(parent, `parent of ${child}`, at(child));
    const chain = new Set([child]);
    for (let p: string | undefined = parent; p !== undefined; p = parentOf(p)) {
      if (chain.has(p)) {
        issues.push({ message: `stage ${child} is inside itself (parents form a cycle)`, line: at(child) });
        break;
      }
      chain.add(p);
      // XState's work to enter a stage grows with the cube of its depth: 100 levels take seconds
      if (chain.size - 1 > MAX_NESTING && !tooDeep) {
        tooDeep = true;
        issues.push({ message: `stage ${child} is nested more than ${MAX_NESTING} composites deep (at most ${MAX_NESTING} levels)`, line: at(child) });
        break;
      }
    }
  }
  if (c.initial_stage && parentOf(c.initial_stage) !== undefined) issues.push({ message: `initial_stage ${c.initial_stage} is inside ${parentOf(c.initial_stage)}; start at a top-level stage`, line: at("initial_stage") });
  const children = childrenOf(c);
  for (const [composite, kids] of children) {
    // without a start, a composite enters its first child (as Mermaid draws it)
    const starts = own(c.initials, composite) ?? [];
    for (const s of starts) if (known.has(s) && parentOf(s) !== composite) issues.push({ message: `initials.${composite}: ${s} is not inside ${composite}`, line: at(s) });
  }
  for (const [composite] of Object.entries(c.initials ?? {})) if (!children.has(composite) && known.has(composite)) issues.push({ message: `initials.${composite}: ${composite} has no stages inside it`, line: at(composite) });
  for (const s of [...(c.ends ?? []), ...(c.choices ?? []), ...(c.forks ?? []), ...(c.joins ?? [])]) unknown(s, "ends/choices/forks/joins", at(s));
  if (!issues.length) for (const p of forkPlan(c).problems) issues.push({ message: p.message, line: at(p.stage) });
  for (const v of c.validators ?? []) {
    if ("target" in v) unknown(v.target, `validator ${v.type}`);
    if ("stage" in v) unknown(v.stage, `validator ${v.type}`);
  }
  if (!issues.length && c.steps) issues.push(...checkSteps(c, lines));
  if (!issues.length) issues.push(...checkRunKeys(c, lines));
  if (issues.length || opts.unreachable === false) return issues;
  return unreachableIssues(c, lines);
}

function unreachableIssues(c: FlowConfig, lines: Record<string, number>): FlowIssue[] {
  const reached = reachable(c);
  return c.stages.filter((s) => !reached.has(s)).map((s) => ({ message: `stage ${s} is unreachable from ${c.initial_stage}`, line: own(lines, s) }));
}

/** Stages a run can reach: through transitions, into a composite's starts (or first child), and out through a parent's transitions. */
export function reachable(c: FlowConfig): Set<string> {
  const seen = new Set<string>();
  const kids = childrenOf(c);
  const todo = [c.initial_stage];
  while (todo.length) {
    const s = todo.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    // a composite without a start enters its first child
    todo.push(...(own(c.transitions, s) ?? []), ...(own(c.initials, s) ?? kids.get(s)?.slice(0, 1) ?? []));
    const p = own(c.parents, s);
    if (p !== undefined) todo.push(p);
  }
  return seen;
}
