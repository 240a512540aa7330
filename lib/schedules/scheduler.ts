// The scheduler: starts a workflow's run at each fire time of a schedule's cron pattern.
//
// Durable and exactly once, with any number of processes firing:
// - the next fire time is stored; a process takes a fire by moving `nextFireAt` past it with a
//   compare-and-set, writing the fire it took in `firingAt` in the same update;
// - it then starts the run with the Idempotency-Key ("schedule <id>", fire time), written in the
//   run's first commit, so a second start of that fire (after a crash between the two steps, or by
//   another process finishing a stale claim) finds the first run instead of making one;
// - after downtime, `catchup` decides: "latest" starts the most recent missed fire once, "none"
//   starts nothing until the next fire time. A fire more than `graceMs` late counts as missed.
// - while the schedule's previous run is open, `overlap` decides: "skip" drops the fire, "allow"
//   starts it anyway, "queue-one" keeps one fire that starts when the open run ends.
// Ticks run on the injected clock: at the earliest next fire, and every `pollMs` for changes
// made by other processes, queued fires and claims a crash left.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Clock } from "../engine/clock";
import type { Engine } from "../engine/engine";
import { ConflictError, InvalidError, NotFoundError, isStorageFailure } from "../engine/errors";
import { withDefaults } from "../machines/defaults";
import { findWorkflow, isBuiltIn, userVersions } from "../machines/registry";
import type { Db } from "../db/client";
import { assertStartable } from "../flows/status";
import { CronError, CronPattern, localTime } from "./cron";
import { ScheduleRows } from "./store";
import type { Schedule, ScheduleFields } from "./types";

export interface SchedulerOptions {
  db: Db;
  clock: Clock;
  engine: () => Engine;
  /** run-input defaults from the environment, per workflow */
  defaults?: Record<string, Record<string, unknown>>;
  /** how often to look for changes other processes made (ms) */
  pollMs?: number;
  /** a fire later than this counts as missed (catchup decides) */
  graceMs?: number;
  log?: (message: string) => void;
}

export const DEFAULT_POLL_MS = 15_000;
export const DEFAULT_GRACE_MS = 60_000;
/** a claimed fire not started after this long was left by a crash */
const CLAIM_STALE_MS = 10_000;

/** The Idempotency-Key of a fire: one run per (schedule, fire time). */
export const fireKey = (id: string, at: number) => ({ scope: `schedule ${id}`, key: new Date(at).toISOString() });

const TOKENS = /\{\{\s*([A-Za-z0-9_.]+)\s*\}\}/g;
const RUN_NAME_ROOTS = /^(schedule\.name|fire\.time|fire\.iso|input\.[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*)$/;

/** problems with a run-name template's placeholders (empty: none) */
export function runNameProblems(template: string): string[] {
  return [...template.matchAll(TOKENS)].map((m) => m[1]!).filter((t) => !RUN_NAME_ROOTS.test(t)).map((t) => `unknown placeholder {{${t}}} (use schedule.name, fire.time, fire.iso or input.<field>)`);
}

/** The name of the run a fire starts: the schedule's runName template, else "<name> · <fire time>". */
export function runNameFor(s: Pick<Schedule, "name" | "runName" | "timezone" | "input">, at: number): string {
  if (!s.runName) return `${s.name} · ${localTime(at, s.timezone)}`;
  return s.runName.replace(TOKENS, (_, path: string) => {
    if (path === "schedule.name") return s.name;
    if (path === "fire.time") return localTime(at, s.timezone);
    if (path === "fire.iso") return new Date(at).toISOString();
    let v: unknown = s.input;
    for (const k of path.split(".").slice(1)) v = v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
    return v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
  });
}

export class Scheduler {
  readonly rows: ScheduleRows;
  private readonly pollMs: number;
  private readonly graceMs: number;
  private timer: unknown = null;
  private running = false;
  /** ticks run one at a time */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: SchedulerOptions) {
    this.rows = new ScheduleRows(opts.db);
    this.pollMs = opts.pollMs ?? DEFAULT_POLL_MS;
    this.graceMs = opts.graceMs ?? DEFAULT_GRACE_MS;
  }

  private get now() {
    return this.opts.clock.now();
  }

  // ---------------------------------------------------------------- the catalogue of schedules

  async create(fields: ScheduleFields & Required<Pick<ScheduleFields, "workflow" | "cron">>, by: string | null): Promise<Schedule> {
    const now = this.now;
    const s: Schedule = {
      id: randomUUID(),
      name: fields.name ?? fields.workflow,
      workflow: fields.workflow,
      version: fields.version ?? null,
      cron: fields.cron,
      timezone: fields.timezone ?? "UTC",
      input: fields.input ?? {},
      runName: fields.runName ?? null,
      overlap: fields.overlap ?? "skip",
      catchup: fields.catchup ?? "none",
      paused: fields.paused ?? false,
      nextFireAt: null,
      firingAt: null,
      queuedFireAt: null,
      lastFireAt: null,
      lastRunId: null,
      lastSkipAt: null,
      lastSkip: null,
      createdBy: by,
      createdAt: now,
      updatedAt: now,
    };
    const cron = this.check(s);
    await assertStartable(this.opts.db, s.workflow);
    s.nextFireAt = s.paused ? null : cron.next(now);
    await this.rows.insert(s);
    this.rearm();
    return s;
  }

  async get(id: string): Promise<Schedule> {
    const s = await this.rows.get(id);
    if (!s) throw new NotFoundError(`schedule ${id} not found`);
    return s;
  }

  list(): Promise<Schedule[]> {
    return this.rows.list();
  }

  /** Change a schedule. A new pattern, time zone or a resume counts the next fire from now; a pause drops a queued fire. */
  async update(id: string, fields: ScheduleFields): Promise<Schedule> {
    const old = await this.get(id);
    const s: Schedule = { ...old, ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)), updatedAt: this.now };
    const cron = this.check(s);
    const timing = fields.cron !== undefined || fields.timezone !== undefined || fields.paused !== undefined;
    if (timing) s.nextFireAt = s.paused ? null : cron.next(this.now);
    if (s.paused) s.queuedFireAt = null;
    if (!(await this.rows.swap(id, { updatedAt: old.updatedAt }, s))) throw new ConflictError(`schedule ${id} was changed meanwhile; read it again`);
    this.rearm();
    return s;
  }

  async remove(id: string): Promise<void> {
    if (!(await this.rows.remove(id))) throw new NotFoundError(`schedule ${id} not found`);
    this.rearm();
  }

  /** Run now: a run of the schedule at once (no fire time; overlap does not apply to a person's request). */
  async trigger(id: string): Promise<{ runId: string }> {
    const s = await this.get(id);
    const at = this.now;
    await assertStartable(this.opts.db, s.workflow);
    const run = await this.opts.engine().start(s.workflow, this.inputOf(s), { scheduleId: s.id, name: runNameFor(s, at) });
    return { runId: run.run.id };
  }

  /** its newest runs */
  runs(id: string, limit?: number) {
    return this.rows.runs(id, limit);
  }

  /** the next `n` fire times from now (none while paused) */
  upcoming(s: Schedule, n = 3): number[] {
    return s.paused ? [] : new CronPattern(s.cron, s.timezone).nextN(n, this.now);
  }

  /** 422 for a schedule that could never start its run: unknown workflow or version, bad pattern, zone, input or run name */
  private check(s: Schedule): CronPattern {
    const def = findWorkflow(s.workflow);
    if (!def) throw new InvalidError(`workflow: unknown workflow "${s.workflow}"`, [{ path: "workflow", message: "unknown workflow" }]);
    if (s.version !== null) {
      if (isBuiltIn(s.workflow)) throw new InvalidError(`version: ${s.workflow} is a built-in workflow, which has no versions (leave version out)`, [{ path: "version", message: "built-ins have no versions" }]);
      if (!userVersions(s.workflow).includes(s.version)) throw new InvalidError(`version: ${s.workflow} has no version ${s.version} (it has ${userVersions(s.workflow).join(", ")})`, [{ path: "version", message: "no such version" }]);
    }
    let cron: CronPattern;
    try {
      cron = new CronPattern(s.cron, s.timezone);
    } catch (e) {
      if (!(e instanceof CronError)) throw e;
      const path = /timezone/.test(e.message) ? "timezone" : "cron";
      throw new InvalidError(`${path}: ${e.message}`, [{ path, message: e.message }]);
    }
    const parsed = z.safeParse(findWorkflow(s.workflow, this.inputOf(s))!.input, this.inputOf(s));
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: ["input", ...i.path].join("."), message: i.message }));
      throw new InvalidError(`input: not a valid input for ${s.workflow}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`, issues);
    }
    const bad = s.runName ? runNameProblems(s.runName) : [];
    if (bad.length) throw new InvalidError(`runName: ${bad.join("; ")}`, bad.map((message) => ({ path: "runName", message })));
    return cron;
  }

  /** the run input: the schedule's, with the environment's defaults, pinned to its version */
  private inputOf(s: Schedule): Record<string, unknown> {
    const input = withDefaults(s.input, this.opts.defaults?.[s.workflow]) as Record<string, unknown>;
    return s.version !== null ? { ...input, definitionVersion: s.version } : input;
  }

  // ---------------------------------------------------------------- firing

  /** Take and start every fire due now, queued fires whose open run ended, and claims a crash left. */
  tick(): Promise<void> {
    const next = this.chain.then(() => this.tickOnce());
    this.chain = next.catch(() => undefined);
    return next;
  }

  private async tickOnce(): Promise<void> {
    const now = this.now;
    for (const s of await this.rows.claimed(now - CLAIM_STALE_MS)) await this.startClaimed(s);
    for (const s of await this.rows.due(now)) await this.takeDue(s, now);
    for (const s of await this.rows.queued()) {
      if (await this.rows.hasOpenRun(s.id)) continue;
      const at = s.queuedFireAt!;
      if (await this.rows.swap(s.id, { queuedFireAt: at, firingAt: null }, { queuedFireAt: null, firingAt: at, updatedAt: now })) await this.startClaimed({ ...s, firingAt: at });
    }
  }

  /** decide what a due fire does, and take it (compare-and-set on nextFireAt) */
  private async takeDue(s: Schedule, now: number): Promise<void> {
    const due = s.nextFireAt!;
    let cron: CronPattern;
    try {
      cron = new CronPattern(s.cron, s.timezone);
    } catch (e) {
      await this.rows.swap(s.id, { nextFireAt: due }, { nextFireAt: null, lastSkipAt: now, lastSkip: (e as Error).message, updatedAt: now });
      return;
    }
    const latest = Math.max(due, cron.latest(now) ?? due);
    const missed = now - latest > this.graceMs;
    const next = cron.next(now);
    let fire: number | null = latest;
    let skip: string | null = null;
    let queue = false;
    if (missed && s.catchup === "none") {
      fire = null;
      skip = `missed (the server was not running at ${new Date(latest).toISOString()}); catchup is none`;
    } else if (s.overlap !== "allow" && (await this.rows.hasOpenRun(s.id))) {
      if (s.overlap === "queue-one") queue = true;
      else skip = "the previous run was still open (overlap: skip)";
    }
    const data: Partial<Schedule> = { nextFireAt: next, updatedAt: now };
    if (skip) Object.assign(data, { lastSkipAt: latest, lastSkip: skip });
    else if (queue) data.queuedFireAt = latest;
    else data.firingAt = latest;
    // another process took this fire when the row no longer holds it
    if (!(await this.rows.swap(s.id, { nextFireAt: due }, data))) return;
    if (data.firingAt !== undefined) await this.startClaimed({ ...s, ...data });
  }

  /** start the claimed fire's run (again, after a crash: the key finds the first one) and clear the claim */
  private async startClaimed(s: Schedule): Promise<void> {
    const at = s.firingAt!;
    const { scope, key } = fireKey(s.id, at);
    let runId: string | null = null;
    let error: string | null = null;
    try {
      const claim = { scope, key, fingerprint: s.id, status: 201, createdAt: this.now };
      // a disabled or deleted workflow starts nothing (409): the fire is recorded as not run
      await assertStartable(this.opts.db, s.workflow);
      runId = (await this.opts.engine().start(s.workflow, this.inputOf(s), { scheduleId: s.id, name: runNameFor(s, at), idempotency: claim })).run.id;
    } catch (e) {
      runId = e instanceof ConflictError ? await this.rows.runOfKey(scope, key) : null;
      if (!runId) {
        // the database is away: the claim stays, and a later tick starts the fire
        if (isStorageFailure(e)) return this.opts.log?.(`schedule ${s.id}: ${(e as Error).message}; will retry`);
        error = (e as Error).message;
        this.opts.log?.(`schedule ${s.id}: the run of ${key} did not start: ${error}`);
      }
    }
    const now = this.now;
    await this.rows.swap(s.id, { firingAt: at }, runId ? { firingAt: null, lastFireAt: at, lastRunId: runId, updatedAt: now } : { firingAt: null, lastSkipAt: at, lastSkip: `the run did not start: ${error}`, updatedAt: now });
  }

  // ---------------------------------------------------------------- the timer

  /** tick at the earliest next fire (and every pollMs) until stop() */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.rearm(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer !== null) this.opts.clock.clearTimeout(this.timer);
    this.timer = null;
    await this.chain;
  }

  /** re-arm the timer (after a change: the next fire may be sooner) */
  private rearm(delay?: number): void {
    if (!this.running) return;
    void (async () => {
      let wait = delay;
      if (wait === undefined) {
        const earliest = await this.rows.earliest().catch(() => null);
        wait = Math.min(this.pollMs, earliest === null ? this.pollMs : Math.max(0, earliest - this.now));
      }
      if (!this.running) return;
      if (this.timer !== null) this.opts.clock.clearTimeout(this.timer);
      this.timer = this.opts.clock.setTimeout(() => {
        this.timer = null;
        void this.tick()
          .catch((e) => this.opts.log?.(`schedules: ${(e as Error).message}`))
          .finally(() => this.rearm());
      }, wait);
    })();
  }
}
