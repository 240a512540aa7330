import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ManualClock } from "../lib/engine/clock";
import type { EffectContext, WorkflowEffects } from "../lib/engine/engine";
import type { RunView } from "../lib/engine/views";
import { migrateDatabase } from "../lib/db/migrations";
import { writersIdle } from "../lib/db/sqlite-writer";
import { createRuntime, defaultEffects, type Runtime, type RuntimeOptions } from "../lib/runtime";

/**
 * A SQLite file of its own: a copy of the migrated template that vitest's global setup made
 * (test/global-setup.ts), so that migrating it finds nothing to do. `empty: true` (or no
 * template, e.g. outside vitest): the file does not exist yet.
 */
export function tempDbUrl(name = "t", opts: { empty?: boolean } = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchyard-"));
  const file = path.join(dir, `${name}.db`);
  const template = process.env.SWITCHYARD_TEST_SQLITE_TEMPLATE;
  if (template && !opts.empty) fs.copyFileSync(template, file);
  return `file:${file}`;
}

export type Overrides = Partial<Record<string, (input: never, ctx: EffectContext) => Promise<unknown>>>;

export type RuntimeOverrides = { url?: string; clock?: ManualClock; actors?: Overrides; env?: NodeJS.ProcessEnv } & Partial<RuntimeOptions>;

/**
 * A runtime on a fresh SQLite file with a simulated clock and the built-in effects of every
 * workflow (lib/runtime's defaultEffects); `actors` replaces effects of `workflow`.
 */
export async function workflowRuntime(workflow: string, opts: RuntimeOverrides = {}): Promise<Runtime & { clock: ManualClock }> {
  const clock = opts.clock ?? new ManualClock();
  const env = opts.env ?? ({} as NodeJS.ProcessEnv);
  const rt = await createRuntime({
    url: opts.url ?? tempDbUrl(),
    clock,
    env,
    migrate: migrateDatabase,
    serviceChoresMs: 0,
    resume: opts.resume,
    model: opts.model,
    seedGuide: opts.seedGuide,
    webhooks: opts.webhooks,
    alerts: opts.alerts,
    retention: opts.retention,
    effects: (base) => {
      const all = defaultEffects(base, env);
      const real = all[workflow] ?? { actors: {} };
      return { ...all, [workflow]: { actors: { ...real.actors, ...(opts.actors as WorkflowEffects["actors"]) }, actions: real.actions } };
    },
  });
  return rt as Runtime & { clock: ManualClock };
}

/** swiss-army tests: an empty knowledge store (no guide), so that only the Context Manager answers searches. */
export function swissRuntime(opts: RuntimeOverrides = {}): Promise<Runtime & { clock: ManualClock }> {
  return workflowRuntime("swiss-army", { seedGuide: false, ...opts });
}

/** An effect that never finishes until its invocation is cancelled. */
export function hang(): (input: never, ctx: EffectContext) => Promise<unknown> {
  return (_input, ctx) =>
    new Promise((_resolve, reject) => {
      ctx.signal.addEventListener("abort", () => reject(new Error("cancelled")));
    });
}

export function fail(message: string): (input: never, ctx: EffectContext) => Promise<unknown> {
  return async () => {
    throw new Error(message);
  };
}

export const inState = (state: string) => (r: RunView) => r.state.includes(state);

/** Let pending promise callbacks and setImmediate-scheduled commits run. */
/** Lets pending steps run: `times` turns of the event loop, each also waiting for batches on SQLite writer threads. */
export async function flush(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) {
    await new Promise((r) => setImmediate(r));
    await writersIdle();
  }
}

/** deep-research tests: the shipped guide is the corpus, and the clock starts on 2026-11-23. */
export function researchRuntime(opts: RuntimeOverrides = {}): Promise<Runtime & { clock: ManualClock }> {
  return workflowRuntime("deep-research", { clock: new ManualClock(Date.parse("2026-11-23T09:00:00Z")), ...opts });
}
