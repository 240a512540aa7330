// The invocation key of an effect: `runId:child:seq`, the run, the invoked child's id and the seq
// of the transition that invoked it. Stable across restarts and cluster workers (effects make
// their writes idempotent with it); built and read here only.

export interface InvocationKey {
  runId: string;
  /** the invoked child's id (the invoke's id in the machine) */
  child: string;
  /** the seq of the transition that invoked it */
  seq: number;
}

/** What a stored snapshot says of its invoked children: each one's state, and the seq that invoked it. */
export interface PersistedChildren {
  children?: Record<string, { src?: unknown; snapshot?: { status?: string; input?: unknown } }>;
  effects?: Record<string, number>;
}

export function keyOf(runId: string, child: string, seq: number): string {
  return `${runId}:${child}:${seq}`;
}

/** The key of child `child`'s invocation as the stored snapshot has it (0 when it never recorded a seq). */
export function childKey(runId: string, persisted: PersistedChildren, child: string): string {
  return keyOf(runId, child, persisted.effects?.[child] ?? 0);
}

/**
 * The parts of a key. `runId`, when known, is taken as is (the child's id is what lies between it
 * and the last colon); else the run id is what comes before the first colon. null: not a key.
 */
export function parseKey(key: string, runId?: string): InvocationKey | null {
  const last = key.lastIndexOf(":");
  const id = runId ?? key.slice(0, Math.max(0, key.indexOf(":")));
  if (!id || last <= id.length || !key.startsWith(`${id}:`)) return null;
  const seq = Number(key.slice(last + 1));
  return { runId: id, child: key.slice(id.length + 1, last), seq: Number.isInteger(seq) && seq >= 0 ? seq : 0 };
}

/** The invocation `key` of run `runId` names (its child "" when it is not one of the run's keys). */
export function invocationOf(runId: string, key: string): { runId: string; child: string; key: string } {
  return { runId, child: parseKey(key, runId)?.child ?? "", key };
}
