// Forks and joins (Mermaid `<<fork>>` / `<<join>>`): a fork whose targets each lead, inside the
// fork's own composite, to one shared join is a parallel split; its branches are the stages each
// target reaches before that join. The machine (machine.ts) nests those stages in a parallel state
// that finishes when every branch has moved into the join. Any other fork is reported by validate.ts.
import { own, type FlowConfig } from "./types";

export interface Fork {
  fork: string;
  join: string;
  /** per target: the stages of its branch (the target first) */
  branches: string[][];
}

/** Every fork's branches, or why it is not a clean split. */
export function forkPlan(c: FlowConfig): { forks: Map<string, Fork>; problems: { stage: string; message: string }[] } {
  const forks = new Map<string, Fork>();
  const problems: { stage: string; message: string }[] = [];
  const joins = new Set(c.joins ?? []);
  const forkSet = new Set(c.forks ?? []);
  for (const f of c.forks ?? []) {
    const scope = own(c.parents, f);
    const targets = own(c.transitions, f) ?? [];
    const fail = (why: string) => void problems.push({ stage: f, message: `fork ${f}: ${why}` });
    if (targets.length < 2) {
      fail(`needs at least two branches (it leads to ${targets.length})`);
      continue;
    }
    if (targets.some((t) => own(c.parents, t) !== scope)) {
      fail("its branches must start in the same composite as the fork");
      continue;
    }
    const owner = new Map<string, number>();
    const reached = new Set<string>();
    let bad = "";
    targets.forEach((t, i) => {
      for (const todo = [t]; todo.length && !bad; ) {
        const s = todo.pop()!;
        if (joins.has(s)) {
          reached.add(s);
          continue;
        }
        if (own(c.parents, s) !== scope || s === f) continue; // leaves the fork's composite (or returns to the fork)
        if (forkSet.has(s)) bad = `branch ${t} reaches another fork, ${s}; nest it in a composite state instead`;
        else if (owner.has(s) && owner.get(s) !== i) bad = `branches ${targets[owner.get(s)!]} and ${t} share ${s}`;
        if (owner.has(s)) continue;
        owner.set(s, i);
        todo.push(...(own(c.transitions, s) ?? []));
      }
    });
    if (bad) fail(bad);
    else if (reached.size !== 1) fail(reached.size ? `its branches reach ${reached.size} joins (${[...reached].join(", ")}); they must meet at one` : "its branches never reach a <<join>>");
    else forks.set(f, { fork: f, join: [...reached][0]!, branches: targets.map((_, i) => [...owner].filter(([, b]) => b === i).map(([s]) => s)) });
  }
  return { forks, problems };
}

/** Partition a parallel composite's children (2+ starts) into regions: each start and the children it reaches. */
export function regionsOf(c: FlowConfig, kids: string[], starts: string[]): string[][] {
  const owner = new Map<string, number>();
  starts.forEach((s, i) => {
    const todo = [s];
    while (todo.length) {
      const k = todo.pop()!;
      if (owner.has(k) || !kids.includes(k)) continue;
      owner.set(k, i);
      todo.push(...(own(c.transitions, k) ?? []));
    }
  });
  return starts.map((_, i) => kids.filter((k) => (owner.get(k) ?? 0) === i));
}
