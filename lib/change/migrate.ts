// POST /api/workflows/{id}/migrate and GET /api/workflows/{id}/versions/{a}/diff/{b} (issue 33 §4):
// move waiting runs of one version to another (states mapped by name unless `map` says otherwise;
// `dryRun` plans without writing), and what changed between two versions. Pinning stays the
// default: nothing moves without this call.
import { z } from "zod";
import { InvalidError, NotFoundError } from "../engine/errors";
import { pinOf } from "../engine/views";
import type { FlowConfig } from "../flows/types";
import { own } from "../flows/types";
import { findWorkflow, isBuiltIn, userVersions } from "../machines/registry";
import type { WorkflowDefinition } from "../machines/types";
import type { Runtime } from "../runtime";
import { sameJson } from "./canonical";

const runId = z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, "not a run id");
const version = (what: string) => z.number({ error: `${what} (a version number) is required` }).int(`${what} must be a whole number`).min(1, "versions start at 1");

const workflowId = z.string().min(1).max(100).regex(/^[A-Za-z0-9._-]+$/, "not a workflow id");
export const MigrateParams = z.object({ id: workflowId });

const versionParam = z.coerce.number({ error: "a version is a number" }).int("a version is a whole number").min(1, "versions start at 1");
export const VersionDiffParams = z.object({ id: workflowId, a: versionParam, b: versionParam });

export const MigrateBody = z
  .object({
    from: version("from"),
    to: version("to"),
    /** old stage name → new stage name (stages not named here map to the stage of the same name) */
    map: z.record(z.string().min(1).max(80), z.string().min(1).max(80), { error: "map must be an object of OLD: NEW stage names" }).optional(),
    runs: z.array(runId).min(1).max(10_000).optional(),
    dryRun: z.boolean({ error: "dryRun must be true or false" }).optional(),
  })
  .strict();
export type MigrateRequest = z.infer<typeof MigrateBody>;

export interface MigrateResult {
  runId: string;
  /** the states it is in (paths), and those it lands in on the new version (none when it cannot move) */
  from: string[];
  to: string[];
  ok: boolean;
  reason?: string;
}

/** A user-defined workflow's version, or a 4xx that says why not. */
export function versionOf(workflow: string, v: number): WorkflowDefinition & { flow: FlowConfig } {
  if (isBuiltIn(workflow)) throw new InvalidError(`${workflow} is a built-in workflow: it has no versions`);
  const versions = userVersions(workflow);
  if (versions.length === 0) throw new NotFoundError(`unknown workflow "${workflow}"`);
  if (!versions.includes(v)) throw new NotFoundError(`workflow ${workflow} has no version ${v} (versions: ${versions.join(", ")})`);
  return findWorkflow(workflow, { definitionVersion: v }) as WorkflowDefinition & { flow: FlowConfig };
}

/** The unfinished runs pinned to a version (replays and evaluation runs left out: they are never moved). */
export async function waitingRunsOf(rt: Runtime, workflow: string, v: number) {
  const rows = await rt.store.listRuns({ workflow, status: ["running", "waiting"], limit: 10_000 });
  return rows.filter((r) => pinOf(r.input) === v);
}

export async function migrateRuns(rt: Runtime, workflow: string, body: MigrateRequest, by: string): Promise<{ dryRun: boolean; results: MigrateResult[] }> {
  const source = versionOf(workflow, body.from);
  const target = versionOf(workflow, body.to);
  if (body.from === body.to) throw new InvalidError(`from and to are both version ${body.from}: nothing to move`);
  const map = body.map ?? {};
  const unknown = Object.keys(map).filter((k) => !source.flow.stages.includes(k));
  if (unknown.length) throw new InvalidError(`map names ${unknown.join(", ")}, not stages of v${body.from} (stages: ${source.flow.stages.join(", ")})`);
  const ids = body.runs ?? (await waitingRunsOf(rt, workflow, body.from)).map((r) => r.id);
  const results: MigrateResult[] = [];
  for (const id of ids) {
    const row = await rt.store.getRun(id);
    if (!row) {
      results.push({ runId: id, from: [], to: [], ok: false, reason: "no such run" });
      continue;
    }
    if (row.workflow !== workflow || pinOf(row.input) !== body.from) {
      results.push({ runId: id, from: row.state, to: [], ok: false, reason: `not a run of ${workflow} v${body.from}` });
      continue;
    }
    if (row.replayOf) {
      results.push({ runId: id, from: row.state, to: [], ok: false, reason: "a replay stays on the version it replays" });
      continue;
    }
    try {
      const r = await rt.engine.migrate(id, target, { map, by, dryRun: !!body.dryRun, from: body.from, to: body.to });
      results.push({ runId: id, ...r });
    } catch (e) {
      results.push({ runId: id, from: row.state, to: [], ok: false, reason: (e as Error).message });
    }
  }
  return { dryRun: !!body.dryRun, results };
}

// ---------------------------------------------------------------- version diff

export interface VersionDiff {
  workflow: string;
  a: number;
  b: number;
  states: { added: string[]; removed: string[]; changed: { name: string; changes: string[] }[] };
  steps: { added: string[]; removed: string[]; changed: { stage: string; changes: string[] }[] };
}

const sorted = (xs: readonly string[] | undefined) => [...(xs ?? [])].sort();

/** What about a stage (other than its step) differs between two configs. */
function stateChanges(a: FlowConfig, b: FlowConfig, s: string): string[] {
  const out: string[] = [];
  if (!sameJson(sorted(own(a.transitions, s)), sorted(own(b.transitions, s)))) out.push("transitions");
  if (own(a.parents ?? {}, s) !== own(b.parents ?? {}, s)) out.push("parent");
  if (!sameJson(sorted(own(a.stage_tools ?? {}, s)), sorted(own(b.stage_tools ?? {}, s)))) out.push("tools");
  if (!sameJson(sorted(own(a.keywords ?? {}, s)), sorted(own(b.keywords ?? {}, s)))) out.push("keywords");
  if (own(a.notes ?? {}, s) !== own(b.notes ?? {}, s)) out.push("note");
  for (const k of ["ends", "choices", "forks", "joins"] as const) if (!!a[k]?.includes(s) !== !!b[k]?.includes(s)) out.push(k);
  if ((a.initial_stage === s) !== (b.initial_stage === s)) out.push("initial");
  return out;
}

/** The fields of a step that differ ("llm.prompt", "review.decisions", "next", "on" …). */
function stepChanges(x: Record<string, unknown>, y: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort()) {
    const a = x[k];
    const b = y[k];
    if (sameJson(a ?? null, b ?? null)) continue;
    if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
      for (const f of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) if (!sameJson((a as Record<string, unknown>)[f] ?? null, (b as Record<string, unknown>)[f] ?? null)) out.push(`${k}.${f}`);
    } else out.push(k);
  }
  return out;
}

export function diffVersions(workflow: string, a: number, b: number): VersionDiff {
  const x = versionOf(workflow, a).flow;
  const y = versionOf(workflow, b).flow;
  const inX = new Set(x.stages);
  const inY = new Set(y.stages);
  const both = x.stages.filter((s) => inY.has(s));
  const stepsX = x.steps ?? {};
  const stepsY = y.steps ?? {};
  const hasX = (s: string) => own(stepsX, s) !== undefined;
  const hasY = (s: string) => own(stepsY, s) !== undefined;
  return {
    workflow,
    a,
    b,
    states: {
      added: y.stages.filter((s) => !inX.has(s)),
      removed: x.stages.filter((s) => !inY.has(s)),
      changed: both.map((name) => ({ name, changes: stateChanges(x, y, name) })).filter((c) => c.changes.length > 0),
    },
    steps: {
      added: y.stages.filter((s) => hasY(s) && !(inX.has(s) && hasX(s))),
      removed: x.stages.filter((s) => hasX(s) && !(inY.has(s) && hasY(s))),
      changed: both
        .filter((s) => hasX(s) && hasY(s))
        .map((stage) => ({ stage, changes: stepChanges(own(stepsX, stage) as Record<string, unknown>, own(stepsY, stage) as Record<string, unknown>) }))
        .filter((c) => c.changes.length > 0),
    },
  };
}
