// The meaning of a definition's steps, each problem with the line it was written on: routes to
// unknown stages or to stages the transitions do not allow, a review decision with no route,
// templates and when: expressions naming a step that cannot have run before (or that do not
// parse), an invalid JSON Schema, a URL the webhook egress guard refuses, an edit with no typed
// value to replace (lib/steps/edit-shape.ts), and steps where they
// cannot run (on a composite or a fork; two reviews waiting at once in parallel branches).
import { z } from "zod";
import { blockedUrl } from "../hooks/egress-rules";
import { childrenOf, own, type FlowConfig, type FlowIssue } from "../flows/types";
import { kindOf, type StepSpec } from "./schema";
import { refsOf, ROOTS, stepNamed, stringsIn } from "./template";
import { whenInfo } from "./when";
import { outputValidator, schemaProblems } from "./json-schema";
import { httpMaxBytesForChecks } from "./http-limits";
import { editTarget } from "./edit-shape";
import { forkPlan, regionsOf } from "../flows/forks";

/** Every template of a step, with the path (for its line) it is written at. */
function templatesOf(spec: StepSpec): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const add = (path: string, text: string | undefined) => text !== undefined && out.push({ path, text });
  add("llm.prompt", spec.llm?.prompt);
  add("llm.system", spec.llm?.system);
  add("http.url", spec.http?.url);
  for (const [k, v] of Object.entries(spec.http?.headers ?? {})) add(`http.headers.${k}`, v);
  for (const t of stringsIn(spec.http?.body)) add("http.body", t);
  add("review.prompt", spec.review?.prompt);
  add("review.show", spec.review?.show);
  return out;
}

/**
 * Stages from which `to` can be reached by one or more moves: transitions, a composite entering
 * its start (or first child), and any stage inside a composite leaving by the composite's moves.
 */
function reachesFrom(c: FlowConfig, to: string): Set<string> {
  const back = new Map<string, string[]>();
  const edge = (from: string, t: string) => back.set(t, [...(back.get(t) ?? []), from]);
  for (const [from, targets] of Object.entries(c.transitions)) for (const t of targets) edge(from, t);
  const kids = childrenOf(c);
  for (const [composite, children] of kids) for (const start of own(c.initials, composite) ?? children.slice(0, 1)) edge(composite, start);
  for (const s of c.stages) for (let p = own(c.parents, s); p !== undefined; p = own(c.parents, p)) for (const t of own(c.transitions, p) ?? []) edge(s, t);
  const seen = new Set<string>();
  const todo = [...(back.get(to) ?? [])];
  while (todo.length) {
    const s = todo.pop()!;
    if (seen.has(s)) continue;
    seen.add(s);
    todo.push(...(back.get(s) ?? []));
  }
  return seen;
}

/**
 * A JSON Schema's problems, each with its path inside the schema: what it may not ask for
 * (lib/steps/json-schema.ts: depth, sizes, patterns RE2 cannot compile), then the shape zod needs
 * to build a validator from it.
 */
export function jsonSchemaProblems(schema: Record<string, unknown>): { path: string; message: string }[] {
  const bounded = schemaProblems(schema);
  if (bounded.length) return bounded;
  const shape = z
    .object({
      type: z.union([z.string(), z.array(z.string())]).optional(),
      properties: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
      required: z.array(z.string()).optional(),
      items: z.union([z.record(z.string(), z.unknown()), z.boolean()]).optional(),
      enum: z.array(z.unknown()).optional(),
      minLength: z.number().int().min(0).optional(),
      maxLength: z.number().int().min(0).optional(),
      minItems: z.number().int().min(0).optional(),
      maxItems: z.number().int().min(0).optional(),
      minimum: z.number().optional(),
      maximum: z.number().optional(),
    })
    .loose();
  const walk = (s: unknown, at: string): { path: string; message: string } | null => {
    const r = shape.safeParse(s);
    if (!r.success) return { path: `${at}${r.error.issues[0]!.path.join(".")}`, message: `not a valid JSON Schema: ${r.error.issues[0]!.message}` };
    for (const [k, v] of Object.entries(r.data.properties ?? {})) {
      const p = walk(v, `${at}properties.${k}.`);
      if (p) return p;
    }
    if (r.data.items && typeof r.data.items === "object") return walk(r.data.items, `${at}items.`);
    return null;
  };
  const shaped = walk(schema, "");
  if (shaped) return [shaped];
  try {
    outputValidator(schema);
    return [];
  } catch (e) {
    return [{ path: "", message: `not a valid JSON Schema: ${(e as Error).message}` }];
  }
}

/** Where a stage sits in parallel states: "fork F" / "composite P" → the branch it is in. */
function branchesOf(c: FlowConfig, stage: string): Map<string, number> {
  const out = new Map<string, number>();
  const forks = forkPlan(c).forks;
  const kids = childrenOf(c);
  let cur = stage;
  for (let guard = 0; guard < 100; guard++) {
    const fork = [...forks.values()].find((f) => f.branches.some((b) => b.includes(cur)));
    if (fork) {
      out.set(`<<fork>> ${fork.fork}`, fork.branches.findIndex((b) => b.includes(cur)));
      cur = fork.fork;
      continue;
    }
    const p = own(c.parents, cur);
    if (p === undefined) break;
    const starts = own(c.initials, p) ?? [];
    if (starts.length > 1) out.set(`composite ${p}`, regionsOf(c, kids.get(p) ?? [], starts).findIndex((r) => r.includes(cur)));
    cur = p;
  }
  return out;
}

/** Another review step that can wait at the same time as this one (another branch of a parallel state it is in). */
function reviewClash(c: FlowConfig, stage: string, steps: Record<string, StepSpec>): { other: string; parallel: string } | null {
  const mine = branchesOf(c, stage);
  if (!mine.size) return null;
  for (const [other, spec] of Object.entries(steps)) {
    if (other === stage || !spec.review) continue;
    for (const [parallel, branch] of branchesOf(c, other)) if (mine.has(parallel) && mine.get(parallel) !== branch) return { other, parallel };
  }
  return null;
}

export function checkSteps(c: FlowConfig, lines: Record<string, number>): FlowIssue[] {
  const issues: FlowIssue[] = [];
  const steps = c.steps ?? {};
  const known = new Set(c.stages);
  const composites = new Set(Object.values(c.parents ?? {}));
  const anyReview = Object.values(steps).some((s) => s.review);
  for (const [stage, spec] of Object.entries(steps)) {
    const at = (path = "") => own(lines, `steps.${stage}${path ? `.${path}` : ""}`) ?? own(lines, `steps.${stage}`);
    const add = (message: string, path?: string) => issues.push({ message: `steps.${stage}${path ? `.${path}` : ""}: ${message}`, line: at(path), path: `steps.${stage}${path ? `.${path}` : ""}` });
    if (!known.has(stage)) {
      add(`unknown stage "${stage}"`);
      continue;
    }
    if (composites.has(stage)) {
      add("a composite stage holds stages, not a step: put the step on a stage inside it");
      continue;
    }
    if (c.forks?.includes(stage)) {
      add("a <<fork>> only starts its branches: put the step on a stage of a branch, or on the join");
      continue;
    }
    const clash = spec.review ? reviewClash(c, stage, steps) : null;
    if (clash) add(`${stage} and ${clash.other} are reviews in two branches of ${clash.parallel}, which run at the same time: a decision would reach both. Keep one review per parallel state`, "review");
    const kind = kindOf(spec);
    const allowed = own(c.transitions, stage) ?? [];
    const route = (to: string | undefined, path: string) => {
      if (to === undefined) return;
      if (!known.has(to)) add(`unknown stage "${to}"`, path);
      else if (!allowed.includes(to)) add(`${stage} -> ${to} is not in transitions.${stage} (${allowed.join(", ") || "none"})`, path);
    };
    route(spec.next, "next");
    for (const [k, to] of Object.entries(spec.on ?? {})) route(to, `on.${k}`);
    route(spec.on_error, "on_error");
    route(spec.timeout?.to, "timeout.to");
    (spec.when ?? []).forEach((w, i) => route(w.to, `when.${i}.to`));
    if (kind === "review") {
      const decisions = spec.review!.decisions;
      for (const d of decisions) if (own(spec.on, d) === undefined && spec.next === undefined) add(`decision "${d}" has no route: add on.${d} or next`, "review.decisions");
      for (const k of Object.keys(spec.on ?? {})) if (!decisions.includes(k)) add(`"${k}" is not one of the review's decisions (${decisions.join(", ")})`, `on.${k}`);
      if (spec.retry) add("a review is not retried: remove retry", "retry");
      if (spec.on_error) add("a review does not fail: remove on_error (use timeout.to)", "on_error");
      if (spec.review!.approvers > 1 && !decisions.includes("approve")) add("approvers counts approvals: add approve to decisions", "review.approvers");
      if (decisions.includes("edit") && !editTarget(spec)) add('edit replaces the value the review shows, keeping its type: give show as one "{{steps.<STAGE>.output}}" or a literal value, or drop edit', spec.review!.show === undefined ? "review.decisions" : "review.show");
    } else if (spec.next === undefined) add(`a ${kind} step needs next: the stage the run goes to when it is done`);
    if (spec.timeout && !spec.timeout.to && !spec.on_error) add("say where a timeout goes: timeout.to or on_error", "timeout");
    if (kind === "wait" && spec.timeout) add("a wait is its own timer: remove timeout", "timeout");
    if (spec.llm?.schema) for (const p of jsonSchemaProblems(spec.llm.schema)) add(p.message, p.path ? `llm.schema.${p.path.replace(/\.$/, "")}` : "llm.schema");
    if (spec.http) {
      const cap = httpMaxBytesForChecks();
      if (spec.http.max_bytes !== undefined && spec.http.max_bytes > cap) add(`${spec.http.max_bytes} is more than this server reads from a reply: at most ${cap} bytes (SWITCHYARD_HTTP_MAX_BYTES)`, "http.max_bytes");
      const url = spec.http.url;
      const literal = url.split("{{")[0]!;
      const hostKnown = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]+[/?#]/i.test(literal) || !url.includes("{{");
      if (hostKnown) {
        let parsed: URL | null = null;
        try {
          parsed = new URL(url.includes("{{") ? literal : url);
        } catch {
          add(`"${url}" is not a URL`, "http.url");
        }
        if (parsed && !["http:", "https:"].includes(parsed.protocol)) add(`only http and https URLs (got ${parsed.protocol})`, "http.url");
        else if (parsed) {
          const why = blockedUrl(parsed.href);
          if (why) add(`the egress guard refuses ${parsed.hostname}: ${why}`, "http.url");
        }
      }
    }
    const before = reachesFrom(c, stage);
    (spec.when ?? []).forEach((w, i) => {
      const path = `when.${i}.if`;
      const info = whenInfo(w.if);
      if (info.problem) add(`"${w.if}": ${info.problem}`, path);
      if (info.review && !anyReview) add(`"${w.if}": this workflow has no review step`, path);
      for (const named of info.steps) {
        // a stage's own step has run when its guards are read
        if (!own(steps, named)) add(`"${w.if}": ${named} is not a stage with a step`, path);
        else if (named !== stage && !before.has(named)) add(`"${w.if}": step ${named} cannot have run before ${stage}`, path);
      }
    });
    if (spec.when && spec.review && spec.review.decisions.every((d) => own(spec.on, d) !== undefined)) add("every decision has its own on route, so when is never read: drop on.<decision> for the decisions when should route", "when");
    for (const t of templatesOf(spec)) {
      for (const ref of refsOf(t.text)) {
        const root = ref.split(".")[0]!;
        if (root === "secrets") {
          if (!t.path.startsWith("http.headers.")) add(`{{${ref}}}: secrets may be used in http headers only`, t.path);
          continue;
        }
        if (!(ROOTS as readonly string[]).includes(root)) {
          add(`{{${ref}}}: a template names input.…, steps.<STAGE>.output or review.decision / feedback / edited`, t.path);
          continue;
        }
        if (root === "review" && !anyReview) add(`{{${ref}}}: this workflow has no review step`, t.path);
        const named = stepNamed(ref);
        if (root === "steps") {
          if (!named || !own(steps, named)) add(`{{${ref}}}: ${named ?? "(none)"} is not a stage with a step`, t.path);
          else if (!before.has(named)) add(`{{${ref}}}: step ${named} cannot have run before ${stage}`, t.path);
        }
      }
    }
  }
  return issues;
}
