// Schedule rows (Prisma) ↔ the Schedule type. Every change of a fire is a compare-and-set on the
// row (`where` names the value read), so two processes never both take one fire.
import type { Db } from "../db/client";
import type { Catchup, Overlap, Schedule } from "./types";

type Row = NonNullable<Awaited<ReturnType<Db["schedule"]["findUnique"]>>>;

const ms = (d: Date | null) => (d ? d.getTime() : null);

export function fromRow(r: Row): Schedule {
  return {
    id: r.id,
    name: r.name,
    workflow: r.workflow,
    version: r.version,
    cron: r.cron,
    timezone: r.timezone,
    input: JSON.parse(r.input) as Record<string, unknown>,
    runName: r.runName,
    overlap: r.overlap as Overlap,
    catchup: r.catchup as Catchup,
    paused: r.paused,
    nextFireAt: ms(r.nextFireAt),
    firingAt: ms(r.firingAt),
    queuedFireAt: ms(r.queuedFireAt),
    lastFireAt: ms(r.lastFireAt),
    lastRunId: r.lastRunId,
    lastSkipAt: ms(r.lastSkipAt),
    lastSkip: r.lastSkip,
    createdBy: r.createdBy,
    createdAt: r.createdAt.getTime(),
    updatedAt: r.updatedAt.getTime(),
  };
}

const date = (v: number | null | undefined) => (v === undefined ? undefined : v === null ? null : new Date(v));

/** Prisma data for the fields given (dates from epoch ms; input as JSON text). */
export function toData(s: Partial<Schedule>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (v === undefined) continue;
    if (k === "input") out[k] = JSON.stringify(v);
    else if (/At$/.test(k)) out[k] = date(v as number | null);
    else out[k] = v;
  }
  return out;
}

export class ScheduleRows {
  constructor(private readonly db: Db) {}

  async get(id: string): Promise<Schedule | null> {
    const r = await this.db.schedule.findUnique({ where: { id } });
    return r ? fromRow(r) : null;
  }

  async list(): Promise<Schedule[]> {
    return (await this.db.schedule.findMany({ orderBy: [{ createdAt: "asc" }, { id: "asc" }] })).map(fromRow);
  }

  async insert(s: Schedule): Promise<void> {
    await this.db.schedule.create({ data: toData(s) as never });
  }

  async remove(id: string): Promise<boolean> {
    return (await this.db.schedule.deleteMany({ where: { id } })).count > 0;
  }

  /** set `data` if the row still holds `expect` (null dates compared as IS NULL); false: someone else changed it */
  async swap(id: string, expect: Partial<Pick<Schedule, "nextFireAt" | "firingAt" | "queuedFireAt" | "updatedAt">>, data: Partial<Schedule>): Promise<boolean> {
    const where: Record<string, unknown> = { id, ...toData(expect) };
    return (await this.db.schedule.updateMany({ where: where as never, data: toData(data) as never })).count === 1;
  }

  /** unpaused schedules whose next fire is due at `now` (oldest first) */
  async due(now: number, limit = 100): Promise<Schedule[]> {
    return (await this.db.schedule.findMany({ where: { paused: false, nextFireAt: { lte: new Date(now) } }, orderBy: { nextFireAt: "asc" }, take: limit })).map(fromRow);
  }

  /** fires claimed at or before `before` and not started (a crash in between) */
  async claimed(before: number, limit = 100): Promise<Schedule[]> {
    return (await this.db.schedule.findMany({ where: { firingAt: { not: null }, updatedAt: { lte: new Date(before) } }, take: limit })).map(fromRow);
  }

  async queued(limit = 100): Promise<Schedule[]> {
    return (await this.db.schedule.findMany({ where: { paused: false, queuedFireAt: { not: null } }, take: limit })).map(fromRow);
  }

  /** the earliest next fire of an unpaused schedule */
  async earliest(): Promise<number | null> {
    const r = await this.db.schedule.findFirst({ where: { paused: false, nextFireAt: { not: null } }, orderBy: { nextFireAt: "asc" }, select: { nextFireAt: true } });
    return ms(r?.nextFireAt ?? null);
  }

  /** has the schedule a run that is still running or waiting? */
  async hasOpenRun(id: string): Promise<boolean> {
    return (await this.db.run.count({ where: { scheduleId: id, status: { in: ["running", "waiting"] } } })) > 0;
  }

  /** its newest runs */
  async runs(id: string, limit = 10) {
    const rows = await this.db.run.findMany({ where: { scheduleId: id }, orderBy: { createdAt: "desc" }, take: limit, select: { id: true, status: true, createdAt: true, finishedAt: true } });
    return rows.map((r) => ({ id: r.id, status: r.status, createdAt: r.createdAt.toISOString(), finishedAt: r.finishedAt?.toISOString() ?? null }));
  }

  /** the run an Idempotency-Key started (a fire another process or an earlier attempt made) */
  async runOfKey(scope: string, key: string): Promise<string | null> {
    const r = await this.db.idempotencyKey.findUnique({ where: { scope_key: { scope, key } }, select: { runId: true } });
    return r?.runId ?? null;
  }
}
