// The research task DAG: statuses from dependencies, the next dispatchable tasks within a
// concurrency limit, failure compensation, and validation (unknown ids, cycles).
import type { Task, TaskType } from "./types";

const PREFIX: Record<TaskType, string> = { Planning: "P", Search: "S", Read: "R", Conflict: "C" };

export function taskPrefix(type: TaskType): string {
  return PREFIX[type];
}

export function nextTaskId(tasks: Task[], type: TaskType): string {
  const p = PREFIX[type];
  const max = tasks.filter((t) => t.id.startsWith(p)).reduce((m, t) => Math.max(m, Number(t.id.slice(p.length)) || 0), 0);
  return `${p}${max + 1}`;
}

const finished = (t: Task) => t.status === "COMPLETED" || t.status === "FAILED";

/**
 * PENDING when every dependency is finished, BLOCKED otherwise. A FAILED dependency counts
 * as finished (its dependents proceed with what there is) unless a compensating task took its
 * place, in which case dependents wait for that one instead.
 */
export function refresh(tasks: Task[]): Task[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  return tasks.map((t) => {
    if (t.status === "COMPLETED" || t.status === "FAILED" || t.status === "IN_PROGRESS") return t;
    const ready = t.dependsOn.every((d) => {
      const dep = byId.get(d);
      return !dep || finished(dep);
    });
    const status = ready ? "PENDING" : "BLOCKED";
    return status === t.status ? t : { ...t, status };
  });
}

/** The PENDING tasks to dispatch now, in plan order, without exceeding `limit` running at once. */
export function dispatchable(tasks: Task[], limit: number): Task[] {
  const running = tasks.filter((t) => t.status === "IN_PROGRESS").length;
  return tasks.filter((t) => t.status === "PENDING").slice(0, Math.max(0, limit - running));
}

export function allFinished(tasks: Task[]): boolean {
  return tasks.length > 0 && tasks.every(finished);
}

export function setStatus(tasks: Task[], id: string, patch: Partial<Task>): Task[] {
  return tasks.map((t) => (t.id === id ? { ...t, ...patch } : t));
}

/** Mark `id` FAILED and add a compensating task that takes its place in the dependencies of others. */
export function compensate(tasks: Task[], id: string, error: string): { tasks: Task[]; added: Task | null } {
  const failed = tasks.find((t) => t.id === id);
  if (!failed) return { tasks, added: null };
  const type: TaskType = failed.type === "Read" ? "Search" : failed.type;
  const added: Task = {
    id: nextTaskId(tasks, type),
    type,
    description: `Compensate for ${id}: ${failed.description} (another route)`,
    status: "PENDING",
    dependsOn: [],
    query: failed.query ? `${failed.query} overview` : failed.description,
    attempts: 0,
    dimension: failed.dimension,
    compensates: id,
  };
  const next = tasks.map((t) => {
    if (t.id === id) return { ...t, status: "FAILED" as const, error };
    if (t.dependsOn.includes(id)) return { ...t, dependsOn: t.dependsOn.map((d) => (d === id ? added.id : d)) };
    return t;
  });
  return { tasks: refresh([...next, added]), added };
}

/** Problems that make a DAG unusable: duplicate ids, unknown dependencies, cycles. */
export function validate(tasks: Task[]): string[] {
  const errors: string[] = [];
  const ids = new Set<string>();
  for (const t of tasks) {
    if (ids.has(t.id)) errors.push(`duplicate task id ${t.id}`);
    ids.add(t.id);
  }
  for (const t of tasks) for (const d of t.dependsOn) if (!ids.has(d)) errors.push(`${t.id} depends on unknown task ${d}`);
  const state = new Map<string, 1 | 2>();
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const visit = (id: string, path: string[]): void => {
    if (state.get(id) === 2) return;
    if (state.get(id) === 1) {
      errors.push(`cycle: ${[...path.slice(path.indexOf(id)), id].join(" → ")}`);
      return;
    }
    state.set(id, 1);
    for (const d of byId.get(id)?.dependsOn ?? []) visit(d, [...path, id]);
    state.set(id, 2);
  };
  for (const t of tasks) visit(t.id, []);
  return errors;
}
