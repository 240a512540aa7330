// Whom a sandbox execution is for: the principal that started its run (a user,
// an API token, or with accounts off a client address; lib/api/who.ts), so that the sandbox can cap
// how many executions one principal has waiting in its queue. Effects run inside their run's scope
// (principalScoped wraps them); runInSandbox asks sandboxPrincipal(), which looks the run up only
// when code is actually run. The record is the RunPrincipal table: a run without one (started by a
// script, or before this existed) counts as its parent's or the run it was forked from, else as itself.
import { AsyncLocalStorage } from "node:async_hooks";
import type { EffectContext, WorkflowEffects } from "../engine/engine";

/** The principal recorded for a run (or inherited), or null when none is known. */
export type PrincipalOf = (runId: string) => Promise<string | null>;

const scope = new AsyncLocalStorage<{ runId: string; principalOf: PrincipalOf }>();

/** Each effect of `fx` runs in its run's scope (wrappers cached per WorkflowEffects object). */
export function principalScoped(principalOf: PrincipalOf): (fx: WorkflowEffects) => WorkflowEffects {
  const seen = new WeakMap<WorkflowEffects, WorkflowEffects>();
  return (fx) => {
    let out = seen.get(fx);
    if (!out) {
      const actors: WorkflowEffects["actors"] = {};
      for (const [name, fn] of Object.entries(fx.actors)) {
        const run = fn as (input: unknown, ctx: EffectContext) => Promise<unknown>;
        // Object.assign keeps the effect's own marks (waitingOutside)
        actors[name] = Object.assign((input: unknown, ctx: EffectContext) => scope.run({ runId: ctx.runId, principalOf }, () => run(input, ctx)), fn) as WorkflowEffects["actors"][string];
      }
      out = { ...fx, actors };
      seen.set(fx, out);
    }
    return out;
  };
}

/** The principal the current execution counts against: the run's, else "run:<id>"; null outside any run. */
export async function sandboxPrincipal(): Promise<string | null> {
  const s = scope.getStore();
  if (!s) return null;
  try {
    return (await s.principalOf(s.runId)) ?? `run:${s.runId}`;
  } catch {
    return `run:${s.runId}`; // the database did not answer: the run counts as itself
  }
}

/**
 * principalOf on the database: the run's own RunPrincipal row, else (not cached, it may be written
 * a moment later: a fork records its principal once it exists) its parent's or its fork source's.
 */
export function principalsIn(db: {
  runPrincipal: { findUnique(a: { where: { runId: string } }): Promise<{ principal: string } | null> };
  run: { findUnique(a: { where: { id: string }; select: { parentId: true; forkOf: true } }): Promise<{ parentId: string | null; forkOf: string | null } | null> };
}): PrincipalOf {
  const cache = new Map<string, string>();
  const own = async (runId: string) => {
    const hit = cache.get(runId);
    if (hit) return hit;
    const row = await db.runPrincipal.findUnique({ where: { runId } });
    if (!row) return null;
    if (cache.size >= 5_000) cache.delete(cache.keys().next().value!);
    cache.set(runId, row.principal);
    return row.principal;
  };
  return async (runId) => {
    let id: string | null = runId;
    for (let depth = 0; id && depth < 5; depth++) {
      const p = await own(id);
      if (p) return p;
      const run: { parentId: string | null; forkOf: string | null } | null = await db.run.findUnique({ where: { id }, select: { parentId: true, forkOf: true } });
      id = run?.parentId ?? run?.forkOf ?? null;
    }
    return null;
  };
}
