// Where a waiting run lands on another version of its workflow (guide 19 §5), computed without
// writing anything: its states mapped by name (or by `map`), its context carried over, its timers
// keeping their deadlines, the effects the new states invoke started anew. Only a run at rest
// moves: waiting on a review, a timer, an event or an external worker's task, nothing else in
// flight. The engine commits the plan as one transition (Engine.migrate).
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode } from "xstate";
import { own, type FlowConfig } from "../flows/types";
import type { WorkflowDefinition } from "../machines/types";
import type { InFlightEffect } from "../engine/invariant";
import { activeNodes, persist, restore } from "../engine/step";
import type { RunRow, TimerRow } from "../engine/store/types";

export const MIGRATE_EVENT = "xstate.migrate";

export interface MoveSource {
  def: WorkflowDefinition;
  row: RunRow;
  context: unknown;
  timers: TimerRow[];
  inFlight: InFlightEffect[];
  /** an effect that waits for something outside the process (an external worker's task) */
  waitsOutside(src: string): boolean;
}

export type MovePlan =
  | { ok: false; from: string[]; reason: string }
  | { ok: true; from: string[]; to: string[]; snapshot: AnyMachineSnapshot; context: unknown; timersSet: TimerRow[]; timersClear: string[]; effects: Record<string, number> };

const keyOf = (s: string) => (/[.#\\%]/.test(s) ? s.replace(/[.#\\%]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`) : s);
const lastSeg = (p: string) => p.split(".").at(-1)!;

/** The state node at a path ("A.B.C"), or null. */
export function nodeAt(machine: AnyStateMachine, path: string): AnyStateNode | null {
  let node: AnyStateNode | undefined = machine.root;
  for (const seg of path.split(".")) {
    node = (node?.states as Record<string, AnyStateNode> | undefined)?.[seg];
    if (!node) return null;
  }
  return node ?? null;
}

/** Every atomic or final state's path, and the stage it stands for. */
function leavesOf(machine: AnyStateMachine): { path: string; node: AnyStateNode }[] {
  const out: { path: string; node: AnyStateNode }[] = [];
  const walk = (n: AnyStateNode) => {
    for (const c of Object.values(n.states) as AnyStateNode[]) {
      if (c.type === "atomic" || c.type === "final") out.push({ path: c.path.join("."), node: c });
      walk(c);
    }
  };
  walk(machine.root);
  return out;
}

/** A flow stage's name from its state path (pseudo-states such as a branch's "joined" end keep their key). */
export const stageOf = (flow: FlowConfig | undefined, path: string): string => {
  const seg = lastSeg(path);
  return flow?.stages.find((s) => keyOf(s) === seg) ?? seg;
};

/** The state value of a set of leaf paths ({ A: { B: "C" } }). */
function valueOf(paths: string[]): Record<string, unknown> | string {
  if (paths.length === 1 && !paths[0]!.includes(".")) return paths[0]!;
  const root: Record<string, unknown> = {};
  for (const p of paths) {
    const parts = p.split(".");
    let at = root;
    parts.forEach((seg, i) => {
      if (i === parts.length - 1) {
        if (!(seg in at)) at[seg] = {};
      } else {
        const next = at[seg];
        at = (next && typeof next === "object" ? next : (at[seg] = {})) as Record<string, unknown>;
      }
    });
  }
  // a leaf written as {} under its parent: a compound's active child is named as a string
  const collapse = (o: Record<string, unknown>): Record<string, unknown> | string => {
    const keys = Object.keys(o);
    if (keys.length === 1 && Object.keys(o[keys[0]!] as object).length === 0) return keys[0]!;
    return Object.fromEntries(keys.map((k) => [k, Object.keys(o[k] as object).length ? collapse(o[k] as Record<string, unknown>) : {}]));
  };
  return collapse(root);
}

function delayMsOf(machine: AnyStateMachine, delay: unknown, context: unknown): number | null {
  if (typeof delay === "number") return delay;
  if (typeof delay !== "string") return null;
  const impl = (machine.implementations.delays ?? {}) as Record<string, number | ((a: { context: unknown; event: unknown }) => number)>;
  const d = impl[delay];
  if (typeof d === "number") return d;
  if (typeof d === "function") return d({ context, event: { type: MIGRATE_EVENT } });
  const n = Number(delay);
  return Number.isFinite(n) ? n : null;
}

const ancestorsAndSelf = (node: AnyStateNode): AnyStateNode[] => {
  const out: AnyStateNode[] = [];
  for (let n: AnyStateNode | undefined = node; n && n.path.length; n = n.parent) out.push(n);
  return out;
};

/** A flow context moved: active stages renamed, approvals kept where the new state is a review with the same decisions. */
function movedContext(src: WorkflowDefinition, target: WorkflowDefinition, context: unknown, renames: [string, string][], now: number): unknown {
  if (!context || typeof context !== "object" || !target.flow) return context;
  const c = { ...(context as Record<string, unknown>) };
  const rename = new Map(renames);
  if (Array.isArray(c.active)) c.active = (c.active as string[]).map((s) => rename.get(s) ?? s);
  const entered = { ...((c.enteredAt as Record<string, number> | undefined) ?? {}) };
  const visits = { ...((c.visits as Record<string, number> | undefined) ?? {}) };
  const approvals = { ...((c.approvals as Record<string, string[]> | undefined) ?? {}) };
  for (const [from, to] of renames) {
    const was = own(src.flow?.steps, from)?.review;
    const now_ = own(target.flow.steps, to)?.review;
    const same = !!was && !!now_ && [...was.decisions].sort().join() === [...now_.decisions].sort().join();
    if (from !== to) {
      entered[to] = entered[from] ?? now;
      visits[to] = Math.max(visits[to] ?? 0, 1);
    }
    if (now_) approvals[to] = same ? (approvals[from] ?? []) : [];
  }
  if (c.enteredAt) c.enteredAt = entered;
  if (c.visits) c.visits = visits;
  if (c.approvals) c.approvals = approvals;
  return c;
}

/** Plan the move of one run to `target` (`seq`: the transition the move will be). */
export function planMove(src: MoveSource, target: WorkflowDefinition, map: Record<string, string>, seq: number, now: number): MovePlan {
  const from = src.row.state;
  const no = (reason: string): MovePlan => ({ ok: false, from, reason });
  if (src.row.status !== "running" && src.row.status !== "waiting") return no(`the run is ${src.row.status}`);
  const busy = src.inFlight.filter((f) => !src.waitsOutside(f.src));
  if (busy.length) return no(`effect in flight: ${busy.map((f) => f.src).join(", ")} (it can move once the step has finished)`);
  const leaves = leavesOf(target.machine);
  const to: string[] = [];
  const renames: [string, string][] = [];
  for (const path of from) {
    const stage = stageOf(src.def.flow, path);
    const mapped = own(map, stage);
    const name = mapped ?? stage;
    const hit = leaves.find((l) => l.path === path && stageOf(target.flow, l.path) === name) ?? leaves.find((l) => stageOf(target.flow, l.path) === name);
    if (!hit) return no(mapped !== undefined ? `state gone: ${name} (mapped from ${stage}) is not a state of v${target.version ?? "?"}` : `unmapped state: ${stage} is not a state of v${target.version ?? "?"}; map it to one`);
    if (hit.node.type === "final" && hit.path.split(".").length === 1) return no(`${name} is a final state of v${target.version ?? "?"}: a run cannot wait there`);
    to.push(hit.path);
    renames.push([stage, stageOf(target.flow, hit.path)]);
  }
  const context = movedContext(src.def, target, src.context, renames, now);
  let snapshot: AnyMachineSnapshot;
  const effects: Record<string, number> = {};
  try {
    const resolved = target.machine.resolveState({ value: valueOf(to) as never, context } as never) as AnyMachineSnapshot;
    const persisted = persist(target.machine, resolved);
    // the effects the new states invoke (an external worker's task is withdrawn and created again)
    const children: Record<string, unknown> = {};
    for (const node of activeNodes(resolved)) {
      for (const inv of node.invoke ?? []) {
        if (typeof inv.src !== "string") continue;
        const input = typeof inv.input === "function" ? (inv.input as (a: unknown) => unknown)({ context, event: { type: MIGRATE_EVENT }, self: undefined }) : inv.input;
        children[inv.id] = { snapshot: { status: "active", input }, src: inv.src, syncSnapshot: false };
        effects[inv.id] = seq;
      }
    }
    snapshot = restore(target.machine, { ...persisted, children }, context);
  } catch (e) {
    return no(`the new state does not build: ${(e as Error).message}`);
  }
  if (snapshot.status !== "active") return no(`the mapped states end the run in v${target.version ?? "?"}`);
  // timers: each new state's delayed transition keeps the deadline of the old state's timer it replaces
  const timersSet: TimerRow[] = [];
  const used = new Set<string>();
  const seen = new Set<AnyStateNode>();
  to.forEach((path, i) => {
    const oldNode = nodeAt(src.def.machine, from[i]!);
    const oldIds = oldNode ? ancestorsAndSelf(oldNode).map((n) => n.id) : [];
    for (const node of ancestorsAndSelf(nodeAt(target.machine, path)!)) {
      if (seen.has(node)) continue;
      seen.add(node);
      for (const after of node.after ?? []) {
        const type = after.eventType as string;
        const old = src.timers.find((t) => !used.has(t.id) && oldIds.some((id) => t.id.endsWith(`.${id}`)) && t.id.split(".")[2] === type.split(".")[2]) ?? src.timers.find((t) => !used.has(t.id) && oldIds.some((id) => t.id.endsWith(`.${id}`)));
        if (old) used.add(old.id);
        const ms = delayMsOf(target.machine, after.delay, context);
        if (!old && ms === null) continue;
        timersSet.push({ runId: src.row.id, id: type, dueAt: old ? old.dueAt : now + ms!, event: { type }, seq });
      }
    }
  });
  return { ok: true, from, to, snapshot, context, timersSet, timersClear: src.timers.map((t) => t.id), effects };
}
