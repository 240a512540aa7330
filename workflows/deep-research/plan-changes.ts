// What changed in a research plan since its first version (dimensions and tasks added, removed,
// edited), and the tasks an edit left without a dimension. Pure: the plan review shows both.

interface Task {
  id: string;
  type: string;
  description: string;
  dependsOn: string[];
  dimension?: string;
}
interface Plan {
  dimensions: string[];
  tasks: Task[];
}

export interface PlanChanges {
  dimensions: { added: string[]; removed: string[] };
  tasks: { added: string[]; removed: string[]; edited: { id: string; what: string[] }[] };
}

const norm = (s: string) => s.trim().toLowerCase();

/** `after` against `before`: tasks are matched by id, dimensions by their text. */
export function planChanges(before: Plan, after: Plan): PlanChanges {
  const had = new Set(before.dimensions.map(norm));
  const has = new Set(after.dimensions.map(norm));
  const old = new Map(before.tasks.map((t) => [t.id, t]));
  const now = new Map(after.tasks.map((t) => [t.id, t]));
  const edited: { id: string; what: string[] }[] = [];
  for (const t of after.tasks) {
    const o = old.get(t.id);
    if (!o) continue;
    const what: string[] = [];
    if (o.type !== t.type) what.push(`type ${o.type} → ${t.type}`);
    if (o.description.trim() !== t.description.trim()) what.push("description");
    if ([...o.dependsOn].sort().join(",") !== [...t.dependsOn].sort().join(",")) what.push(`after ${o.dependsOn.join(", ") || "nothing"} → ${t.dependsOn.join(", ") || "nothing"}`);
    if ((o.dimension ?? "") !== (t.dimension ?? "")) what.push(`dimension ${o.dimension || "none"} → ${t.dimension || "none"}`);
    if (what.length) edited.push({ id: t.id, what });
  }
  return {
    dimensions: { added: after.dimensions.filter((d) => !had.has(norm(d))), removed: before.dimensions.filter((d) => !has.has(norm(d))) },
    tasks: { added: after.tasks.filter((t) => !old.has(t.id)).map((t) => t.id), removed: before.tasks.filter((t) => !now.has(t.id)).map((t) => t.id), edited },
  };
}

/** whether anything changed */
export function changed(c: PlanChanges): boolean {
  return !!(c.dimensions.added.length || c.dimensions.removed.length || c.tasks.added.length || c.tasks.removed.length || c.tasks.edited.length);
}

/** tasks whose dimension is not (or no longer) one of the plan's: "S3 (Costs)" */
export function orphanTasks(plan: Plan): { id: string; dimension: string }[] {
  const dims = new Set(plan.dimensions.map(norm));
  return plan.tasks.filter((t) => t.dimension?.trim() && !dims.has(norm(t.dimension))).map((t) => ({ id: t.id, dimension: t.dimension!.trim() }));
}
