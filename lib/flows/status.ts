// A workflow's switches, in the database so that every process sees them: a
// disabled workflow starts no new runs (nor forks) and is not offered in the New-run form; a
// deleted user-defined workflow is a tombstone: its id stays taken (saving it again is a 409),
// its versions stay registered for the runs and exports that name them, and it leaves the
// catalog. No row means enabled.
import type { Db } from "../db/client";
import { EngineError } from "../engine/errors";

export interface WorkflowSwitches {
  disabled: boolean;
  /** epoch ms when it was deleted; null: not deleted */
  deletedAt: number | null;
}

const ENABLED: WorkflowSwitches = { disabled: false, deletedAt: null };

/** Every workflow's switches that differ from enabled, by id. */
export async function workflowSwitches(db: Db): Promise<Map<string, WorkflowSwitches>> {
  const rows = await db.workflowStatus.findMany();
  return new Map(rows.map((r) => [r.id, { disabled: r.disabled, deletedAt: r.deletedAt ? r.deletedAt.getTime() : null }]));
}

export async function switchesOf(db: Db, id: string): Promise<WorkflowSwitches> {
  const r = await db.workflowStatus.findUnique({ where: { id } });
  return r ? { disabled: r.disabled, deletedAt: r.deletedAt ? r.deletedAt.getTime() : null } : ENABLED;
}

/** Is a workflow with these switches offered for new runs? */
export const startable = (s: WorkflowSwitches | undefined) => !s || (!s.disabled && s.deletedAt === null);

/** 409 (code workflow_disabled / workflow_deleted) when `id` may start no new run. */
export async function assertStartable(db: Db, id: string): Promise<void> {
  const s = await switchesOf(db, id);
  if (s.deletedAt !== null) throw new EngineError(`workflow "${id}" was deleted: it starts no new runs (its old runs stay readable)`, 409, "workflow_deleted");
  if (s.disabled) throw new EngineError(`workflow "${id}" is disabled: it starts no new runs until an admin enables it (PATCH /api/workflows/${id} {"disabled": false})`, 409, "workflow_disabled");
}

export async function setSwitches(db: Db, id: string, change: Partial<{ disabled: boolean; deletedAt: Date }>, now: number): Promise<WorkflowSwitches> {
  const r = await db.workflowStatus.upsert({
    where: { id },
    create: { id, disabled: change.disabled ?? false, deletedAt: change.deletedAt ?? null, updatedAt: new Date(now) },
    update: { ...change, updatedAt: new Date(now) },
  });
  return { disabled: r.disabled, deletedAt: r.deletedAt ? r.deletedAt.getTime() : null };
}
