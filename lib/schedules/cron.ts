// Cron patterns, read by croner: 5 fields (minute first), or 6 with seconds first, in an IANA time
// zone. Nothing here keeps time itself: the scheduler asks for fire times around the clock's now.
import { Cron } from "croner";

export class CronError extends Error {}

/** Fire times of a pattern in a time zone. Throws CronError for a bad pattern or zone. */
export class CronPattern {
  private readonly cron: Cron;

  constructor(
    readonly pattern: string,
    readonly timezone: string,
  ) {
    const fields = pattern.trim().split(/\s+/).length;
    if (fields !== 5 && fields !== 6) throw new CronError(`cron must have 5 fields (minute hour day month weekday) or 6 (seconds first); "${pattern}" has ${fields}`);
    if (!validZone(timezone)) throw new CronError(`timezone must be an IANA time zone such as "UTC" or "Europe/Berlin"; got "${timezone}"`);
    try {
      // paused and without a function: croner only computes, it never sets a timer
      this.cron = new Cron(pattern.trim(), { timezone, mode: "5-or-6-parts", paused: true });
    } catch (e) {
      throw new CronError(`cron "${pattern}": ${(e as Error).message.replace(/^CronPattern: /, "")}`);
    }
    if (!this.cron.nextRun(new Date(0))) throw new CronError(`cron "${pattern}" never fires`);
  }

  /** the first fire time strictly after `ms` (null: none) */
  next(ms: number): number | null {
    return this.cron.nextRun(new Date(ms))?.getTime() ?? null;
  }

  /** the next `n` fire times after `ms` */
  nextN(n: number, ms: number): number[] {
    return this.cron.nextRuns(n, new Date(ms)).map((d) => d.getTime());
  }

  /** the latest fire time at or before `ms` (null: none) */
  latest(ms: number): number | null {
    // croner counts back from a reference it leaves out, at whole seconds
    const [d] = this.cron.previousRuns(1, new Date(Math.floor(ms / 1000) * 1000 + 1000));
    return d && d.getTime() <= ms ? d.getTime() : null;
  }
}

function validZone(tz: string): boolean {
  if (!tz || tz.length > 100) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** `ms` as the schedule's local time, "2026-11-28 09:00" (seconds shown when they are not 0) */
export function localTime(ms: number, timezone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", { timeZone: timezone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" })
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  const sec = parts.second && parts.second !== "00" ? `:${parts.second}` : "";
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}${sec}`;
}
