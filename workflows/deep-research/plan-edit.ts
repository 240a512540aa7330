// Editing a deep-research plan as rows (plan-editor.tsx): pure steps on the plan
// and the problems that PlanSchema (machine.ts) would refuse it for, so the
// form says what is wrong before the decision is sent.
import { nextTaskId, validate } from "./research/dag";
import type { Task, TaskType } from "./research/types";

export const TASK_TYPES: TaskType[] = ["Planning", "Search", "Read", "Conflict"];

export interface EditTask {
  id: string;
  type: string;
  description: string;
  dependsOn: string[];
  dimension?: string;
  [more: string]: unknown;
}

export interface EditPlan {
  topic: string;
  dimensions: string[];
  tasks: EditTask[];
  estimatedIterations: number;
  [more: string]: unknown;
}

/** what PlanSchema would refuse, in plain words (empty: the plan can be sent) */
export function planProblems(plan: EditPlan): string[] {
  const out: string[] = [];
  if (plan.dimensions.length === 0) out.push("add at least one dimension");
  if (plan.dimensions.length > 12) out.push("at most 12 dimensions");
  plan.dimensions.forEach((d, i) => {
    if (!d.trim()) out.push(`dimension ${i + 1} is empty`);
    else if (d.length > 200) out.push(`dimension ${i + 1} is longer than 200 characters`);
  });
  if (plan.tasks.length === 0) out.push("add at least one task");
  if (plan.tasks.length > 60) out.push("at most 60 tasks");
  for (const t of plan.tasks) {
    if (!/^[PSRC]\d+$/.test(t.id)) out.push(`${t.id}: task ids are P/S/R/C followed by a number`);
    if (!TASK_TYPES.includes(t.type as TaskType)) out.push(`${t.id}: unknown type ${t.type}`);
    if (!t.description.trim()) out.push(`${t.id} has no description`);
    else if (t.description.length > 500) out.push(`${t.id}: the description is longer than 500 characters`);
  }
  if (!Number.isInteger(plan.estimatedIterations) || plan.estimatedIterations < 1 || plan.estimatedIterations > 500) out.push("estimated iterations: a whole number from 1 to 500");
  out.push(...validate(plan.tasks as unknown as Task[]));
  return out;
}

/** the plan as it is sent: trimmed text, no empty dimension on a task */
export function cleanPlan(plan: EditPlan): EditPlan {
  return {
    ...plan,
    dimensions: plan.dimensions.map((d) => d.trim()),
    tasks: plan.tasks.map((t) => {
      const { dimension, ...rest } = t;
      const dim = dimension?.trim();
      return { ...rest, description: t.description.trim(), ...(dim ? { dimension: dim } : {}) };
    }),
  };
}

export function move<T>(list: T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (index < 0 || index >= list.length || to < 0 || to >= list.length) return list;
  const next = [...list];
  [next[index], next[to]] = [next[to]!, next[index]!];
  return next;
}

export function addTask(plan: EditPlan, type: TaskType = "Search"): EditPlan {
  const id = nextTaskId(plan.tasks as unknown as Task[], type);
  return { ...plan, tasks: [...plan.tasks, { id, type, description: "", dependsOn: [], status: "PENDING" }] };
}

/** remove a task, and it from every task that depended on it */
export function removeTask(plan: EditPlan, id: string): EditPlan {
  return { ...plan, tasks: plan.tasks.filter((t) => t.id !== id).map((t) => (t.dependsOn.includes(id) ? { ...t, dependsOn: t.dependsOn.filter((d) => d !== id) } : t)) };
}

/** a new type gives the task an id of that type's letter; dependencies follow the new id */
export function setTaskType(plan: EditPlan, id: string, type: TaskType): EditPlan {
  const task = plan.tasks.find((t) => t.id === id);
  if (!task || task.type === type) return plan;
  const others = plan.tasks.filter((t) => t.id !== id);
  const fresh = id.startsWith(nextTaskId([], type).slice(0, 1)) ? id : nextTaskId(others as unknown as Task[], type);
  return {
    ...plan,
    tasks: plan.tasks.map((t) => (t.id === id ? { ...t, id: fresh, type } : { ...t, dependsOn: t.dependsOn.map((d) => (d === id ? fresh : d)) })),
  };
}

export function toggleDependency(plan: EditPlan, id: string, on: string): EditPlan {
  return { ...plan, tasks: plan.tasks.map((t) => (t.id !== id ? t : { ...t, dependsOn: t.dependsOn.includes(on) ? t.dependsOn.filter((d) => d !== on) : [...t.dependsOn, on] })) };
}

/** rename a dimension; the tasks filed under it follow */
export function renameDimension(plan: EditPlan, index: number, name: string): EditPlan {
  const old = plan.dimensions[index];
  return {
    ...plan,
    dimensions: plan.dimensions.map((d, i) => (i === index ? name : d)),
    tasks: plan.tasks.map((t) => (old !== undefined && t.dimension === old ? { ...t, dimension: name } : t)),
  };
}

/** remove a dimension; its tasks stay, filed under none */
export function removeDimension(plan: EditPlan, index: number): EditPlan {
  const old = plan.dimensions[index];
  return {
    ...plan,
    dimensions: plan.dimensions.filter((_, i) => i !== index),
    tasks: plan.tasks.map((t) => {
      if (t.dimension !== old) return t;
      const { dimension: _gone, ...rest } = t;
      return rest as EditTask;
    }),
  };
}
