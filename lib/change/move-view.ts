// What the workflow page shows of versions (guide 19 §5): the unfinished runs pinned to older
// versions, the dry run of moving one version's runs to the latest (from ?from=N and ?map.OLD=NEW),
// a version diff (?diff=N), and the overlay that paints them on the latest version's diagram.
import type { WorkflowGraph } from "../graph/derive";
import type { WorkflowDefinition } from "../machines/types";
import { userVersions } from "../machines/registry";
import { pinOf } from "../engine/views";
import type { Runtime } from "../runtime-types";
import type { DiagramOverlay } from "../graph/overlay";
import { diffVersions, migrateRuns, versionOf, type MigrateResult, type VersionDiff } from "./migrate";

export interface MoveView {
  workflow: string;
  latest: number;
  /** older versions with unfinished runs pinned to them */
  waiting: { version: number; runs: number }[];
  /** the version whose runs the dry run moves (null: no dry run shown) */
  from: number | null;
  /** the mapping in use, and each state of `from` the latest lacks */
  map: Record<string, string>;
  unmapped: string[];
  /** the latest version's stages (mapping targets) */
  targets: string[];
  results: MigrateResult[] | null;
  /** state id → name, for the latest version */
  names: Record<string, string>;
  diff: VersionDiff | null;
  message: string | null;
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export async function moveView(rt: Runtime, def: WorkflowDefinition, graph: WorkflowGraph, sp: Record<string, string | string[] | undefined>): Promise<{ view: MoveView; overlay: DiagramOverlay } | null> {
  const versions = userVersions(def.id);
  const latest = Math.max(...versions);
  const idOf = (stage: string) => graph.states.find((s) => s.name === stage && (s.type === "atomic" || s.type === "final" || s.type === "compound" || s.type === "parallel"))?.id ?? stage;
  const names = Object.fromEntries(graph.states.map((s) => [s.id, s.name]));
  // unfinished runs per older version (replays stay where they are)
  const rows = await rt.store.listRuns({ workflow: def.id, status: ["running", "waiting"], limit: 10_000 });
  const per = new Map<number, number>();
  for (const r of rows) {
    const v = pinOf(r.input);
    if (v !== null && v !== latest) per.set(v, (per.get(v) ?? 0) + 1);
  }
  const waiting = [...per].sort((a, b) => a[0] - b[0]).map(([version, runs]) => ({ version, runs }));
  const nodes: NonNullable<DiagramOverlay["nodes"]> = {};
  const fromRaw = Number(one(sp.from));
  const from = Number.isInteger(fromRaw) && versions.includes(fromRaw) && fromRaw !== latest ? fromRaw : null;
  const target = versionOf(def.id, latest).flow;
  const map: Record<string, string> = {};
  let unmapped: string[] = [];
  let results: MoveView["results"] = null;
  if (from !== null) {
    const source = versionOf(def.id, from).flow;
    unmapped = source.stages.filter((s) => !target.stages.includes(s));
    for (const s of unmapped) {
      const m = one(sp[`map.${s}`]);
      if (m && target.stages.includes(m)) map[s] = m;
    }
    results = (await migrateRuns(rt, def.id, { from, to: latest, dryRun: true, ...(Object.keys(map).length ? { map } : {}) }, "dry run")).results;
    const landing = new Map<string, number>();
    for (const r of results) if (r.ok) for (const s of r.to) landing.set(s, (landing.get(s) ?? 0) + 1);
    for (const [s, n] of landing) (nodes[s] ??= []).push({ label: n === 1 ? "1 run lands here" : `${n} runs land here`, tone: "info", title: `${n} waiting run${n === 1 ? "" : "s"} of v${from} would move here` });
  }
  const diffRaw = Number(one(sp.diff));
  const diff = Number.isInteger(diffRaw) && versions.includes(diffRaw) && diffRaw !== latest ? diffVersions(def.id, diffRaw, latest) : null;
  if (diff) {
    for (const s of diff.states.added) (nodes[idOf(s)] ??= []).push({ label: "+ new", tone: "good", title: `a state v${diff.a} did not have` });
    for (const c of diff.states.changed) (nodes[idOf(c.name)] ??= []).push({ label: "changed", tone: "warn", title: c.changes.join(", ") });
    for (const c of diff.steps.added) if (!diff.states.added.includes(c)) (nodes[idOf(c)] ??= []).push({ label: "+ step", tone: "good", title: `a step v${diff.a} did not have` });
    for (const c of diff.steps.changed) (nodes[idOf(c.stage)] ??= []).push({ label: "step changed", tone: "warn", title: c.changes.join(", ") });
  }
  const moved = Number(one(sp.moved));
  const error = one(sp.error);
  const message = error ? error : Number.isInteger(moved) && one(sp.to) ? `Moved ${moved} run${moved === 1 ? "" : "s"} to v${one(sp.to)}${Number(one(sp.left)) ? `; ${one(sp.left)} could not move` : ""}.` : null;
  return {
    view: { workflow: def.id, latest, waiting, from, map, unmapped, targets: target.stages, results, names, diff, message },
    overlay: { nodes },
  };
}
