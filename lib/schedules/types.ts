// A schedule as the service and the API see it (dates as epoch ms inside, ISO strings outside).

export const OVERLAP = ["skip", "allow", "queue-one"] as const;
export type Overlap = (typeof OVERLAP)[number];
export const CATCHUP = ["none", "latest"] as const;
export type Catchup = (typeof CATCHUP)[number];

export interface Schedule {
  id: string;
  name: string;
  workflow: string;
  version: number | null;
  cron: string;
  timezone: string;
  input: Record<string, unknown>;
  runName: string | null;
  overlap: Overlap;
  catchup: Catchup;
  paused: boolean;
  nextFireAt: number | null;
  /** a fire claimed and not yet started (a crash in between: the next tick starts it, with the same key) */
  firingAt: number | null;
  /** overlap queue-one: the fire waiting for the open run to end */
  queuedFireAt: number | null;
  lastFireAt: number | null;
  lastRunId: string | null;
  /** the last fire that started no run, and why */
  lastSkipAt: number | null;
  lastSkip: string | null;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
}

/** What a create or an update may set (already validated by the API's schemas). */
export interface ScheduleFields {
  name?: string;
  workflow?: string;
  version?: number | null;
  cron?: string;
  timezone?: string;
  input?: Record<string, unknown>;
  runName?: string | null;
  overlap?: Overlap;
  catchup?: Catchup;
  paused?: boolean;
}
