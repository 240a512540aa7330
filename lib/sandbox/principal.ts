// Whom a sandbox execution is for: the principal that started its run (a user,
// an API token, or with accounts off a client address; lib/api/who.ts), so that the sandbox can cap
// how many executions one principal has waiting in its queue. principalScoped wraps a workflow's
// effects so that each invocation's context knows how to find its run's principal; an effect that
// sends code to the sandbox passes its context along (runInSandbox(req, { ctx })), and
// sandboxPrincipal(ctx) looks the run up only when code is actually run. The record is the
// RunPrincipal table: a run without one (started by a script, or before this existed) counts as its
// parent's or the run it was forked from, else as itself.
//
// An explicit parameter, not an AsyncLocalStorage: on Node 20 one AsyncLocalStorage in use turns
// on promise hooks for the whole process for good: a cost on every promise the engine makes.
import type { EffectContext, WorkflowEffects } from "../engine/effects";

/** The principal recorded for a run (or inherited), or null when none is known. */
export type PrincipalOf = (runId: string) => Promise<string | null>;

/** each scoped invocation's context → how to find its run's principal (the engine builds one context per invocation) */
const scopes = new WeakMap<EffectContext, PrincipalOf>();

/** Each effect of `fx` is given a context that knows its run's principal (wrappers cached per WorkflowEffects object). */
export function principalScoped(principalOf: PrincipalOf): (fx: WorkflowEffects) => WorkflowEffects {
  const seen = new WeakMap<WorkflowEffects, WorkflowEffects>();
  return (fx) => {
    let out = seen.get(fx);
    if (!out) {
      const actors: WorkflowEffects["actors"] = {};
      for (const [name, fn] of Object.entries(fx.actors)) {
        const run = fn as (input: unknown, ctx: EffectContext) => Promise<unknown>;
        // Object.assign keeps the effect's own marks (waitingOutside)
        actors[name] = Object.assign((input: unknown, ctx: EffectContext) => {
          scopes.set(ctx, principalOf);
          return run(input, ctx);
        }, fn) as WorkflowEffects["actors"][string];
      }
      out = { ...fx, actors };
      seen.set(fx, out);
    }
    return out;
  };
}

/** The principal an execution for the effect given `ctx` counts against: the run's, else "run:<id>"; null outside any run (no context, or one no runtime scoped). */
export async function sandboxPrincipal(ctx: EffectContext | undefined): Promise<string | null> {
  const principalOf = ctx && scopes.get(ctx);
  if (!ctx || !principalOf) return null;
  try {
    return (await principalOf(ctx.runId)) ?? `run:${ctx.runId}`;
  } catch {
    return `run:${ctx.runId}`; // the database did not answer: the run counts as itself
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
