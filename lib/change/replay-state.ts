// A replay run in the engine's memory (guide 19 §3): its source's recorded outcomes and decisions
// (loaded once), and its own visit counts, which say which of the source's invocations and reviews
// each of its own lines up with ("<state id>#<visit>"). The engine asks it:
// - before an effect runs: take the recorded outcome (same key, equal input, state not `live`),
//   or skip a side effect (an http or external step without a recorded answer), or run for real;
// - before a commit: decide the reviews the commit opens as the source's reviewers decided
//   (decisions: "replay"), in that same commit, marked with the review they repeat;
// - whether a post-commit action or a webhook may go out (only for states named `live`).
// A fork with reuse: true is the same, except that it sends what any run sends and asks people.
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { EventObject } from "xstate";
import { addStep, type Draft } from "../engine/draft";
import { step } from "../engine/step";
import type { ReplaySpec, RunRow, RunStore, TransitionRow } from "../engine/store/types";
import type { WorkflowDefinition } from "../machines/types";
import { hashOf } from "./canonical";
import { keyAt } from "./records";
import { loadReplaySource, type ReplaySource } from "./replay-source";
import { VisitCounter, visitsOf } from "./visits";

export interface ReplayedOutcome {
  output?: unknown;
  error?: { name: string; message: string; category?: string } | null;
  /** replayed: the source's recorded outcome; skipped: a side effect not sent */
  mark: "replayed" | "skipped";
}

/** Effects whose work is a side effect outside Switchyard: never run by a replay unless its state is live. */
const SIDE_EFFECTS = new Set(["step.http", "step.external"]);

/** What a step takes when its side effect is not sent (the step view says "skipped (replay)"). */
export const SKIPPED = { output: { skipped: "replay" }, by: "skipped (replay)" };

interface Loaded {
  source: ReplaySource;
  counter: VisitCounter;
  /** reviews this run opened per visit key so far (the k-th is decided as the source's k-th decision there) */
  used: Map<string, number>;
}

const lastSeg = (s: string) => s.split(".").at(-1)!;

export class ReplayState {
  /** a replay or evaluation case: nothing leaves Switchyard but for its live states */
  readonly quiet: boolean;
  private loaded: Promise<Loaded>;

  private constructor(
    readonly spec: ReplaySpec,
    loaded: Promise<Loaded>,
  ) {
    this.quiet = !spec.fork;
    this.loaded = loaded;
    // a source that cannot be read leaves the run to run for real (awaited where it is used)
    this.loaded.catch(() => undefined);
  }

  /** a run being created: nothing counted yet */
  static fresh(store: RunStore, spec: ReplaySpec): ReplayState {
    return new ReplayState(spec, loadReplaySource(store, spec.of).then((source) => ({ source, counter: new VisitCounter(), used: new Map() })));
  }

  /** a stored run loaded again: its own transitions and reviews say where it is */
  static stored(store: RunStore, run: RunRow): ReplayState {
    return new ReplayState(
      run.replay!,
      (async () => {
        const [source, transitions, reviews] = await Promise.all([loadReplaySource(store, run.replay!.of), store.transitions(run.id, 0, 10_000), store.listReviews({ runId: run.id, limit: 10_000 })]);
        const counter = new VisitCounter();
        for (const t of transitions) counter.apply(t);
        const visits = visitsOf(transitions);
        const used = new Map<string, number>();
        for (const r of reviews) {
          const k = keyAt(visits, r.state, r.seq);
          if (k) used.set(k, (used.get(k) ?? 0) + 1);
        }
        return { source, counter, used };
      })(),
    );
  }

  /** a state named in `live` (by its path or its own name) */
  isLive(state: string): boolean {
    return this.spec.live.some((l) => l === state || l === lastSeg(state));
  }

  /** a transition that enters or leaves a live state (its actions and hook events may go out) */
  touchesLive(t: Pick<TransitionRow, "from" | "to"> | undefined): boolean {
    return !!t && [...t.from, ...t.to].some((s) => this.isLive(s));
  }

  /** The outcome an effect about to run takes from the source, or null: it runs for real. */
  async outcome(state: string, src: string, input: unknown): Promise<ReplayedOutcome | null> {
    if (this.isLive(state)) return null;
    let l: Loaded;
    try {
      l = await this.loaded;
    } catch {
      return null;
    }
    const rec = l.source.outcomes.get(`${state}#${l.counter.current(state)}`);
    if (rec && rec.inputHash === hashOf(input ?? null)) return rec.error ? { error: rec.error, mark: "replayed" } : { output: rec.output, mark: "replayed" };
    if (this.quiet && SIDE_EFFECTS.has(src)) return { output: SKIPPED, mark: "skipped" };
    return null;
  }

  /**
   * Decide, in the draft, the reviews it opens that the source's reviewers decided at the same key
   * (decisions: "replay"), as they decided; `keep` (after the commit) makes the counts this run's.
   */
  async decide(draft: Draft, def: WorkflowDefinition, allowed: boolean): Promise<{ keep(): void } | null> {
    let l: Loaded;
    try {
      l = await this.loaded;
    } catch {
      return null;
    }
    const counter = l.counter.clone();
    const used = new Map(l.used);
    let applied = 0;
    const catchUp = () => {
      for (; applied < draft.transitions.length; applied++) counter.apply(draft.transitions[applied]!);
    };
    catchUp();
    const seen = new Set<string>();
    for (let guard = 0; guard < 200; guard++) {
      const open = draft.reviewsOpen.find((r) => r.status === "pending" && !seen.has(r.id));
      if (!open) break;
      seen.add(open.id);
      const key = `${open.state}#${counter.current(open.state)}`;
      const k = used.get(key) ?? 0;
      used.set(key, k + 1);
      const d = this.spec.decisions === "replay" && allowed ? l.source.decisions.get(key)?.[k] : undefined;
      if (!d) continue;
      let event: EventObject & Record<string, unknown> = {
        ...d.data,
        type: d.decision.toUpperCase(),
        ...(d.feedback !== undefined ? { feedback: d.feedback } : {}),
        ...(d.reviewer !== undefined ? { reviewer: d.reviewer } : {}),
        ...(d.modifications ? { modifications: d.modifications } : {}),
      };
      const schema = def.events[event.type];
      if (schema) {
        const parsed = z.safeParse(schema, event);
        if (!parsed.success) continue;
        event = parsed.data as EventObject & Record<string, unknown>;
      }
      if (def.refuseDecision?.(open.state, draft.snapshot.context, d.decision, { reviewer: d.reviewer, data: d.data })) continue;
      // marked: the step view and the transition say the engine repeated it, no person decided
      const ev = { ...event, at: draft.now, replayed: "replayed" };
      const res = step(def.machine, draft.snapshot, ev);
      if (res.transitions.length === 0) continue;
      addStep(draft, res, ev, {
        decided: { id: open.id, status: "decided", decision: d.decision, feedback: d.feedback ?? null, reviewer: d.reviewer ?? null, decidedAt: draft.now, replayedFrom: d.review.id, decidedBy: "engine" },
        newId: randomUUID,
      });
      catchUp();
    }
    return {
      keep: () => {
        l.counter = counter;
        l.used = used;
      },
    };
  }
}
