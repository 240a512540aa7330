// Why a failed run failed, first on its page: the error's message, the state it failed
// in, how many attempts it took, and where "Retry from <state>" forks it: the transition that
// entered that state, so the fork starts with the failed step in flight and runs it again with the
// same input. Pure: the run and its transitions in, the failure out (the runs list's bulk retry
// reads the same retry point).
import { own, type FlowConfig } from "../flows/types";

export interface RunFailure {
  /** the stage (or state) that failed */
  state: string;
  message: string;
  category: string | null;
  /** attempts the failed step took (1 + its retries), when known */
  attempts: number | null;
  /** fork at this seq to run the failed step again (null: no transition entered it) */
  retry: { seq: number } | null;
}

interface FailedRun {
  status: string;
  error: unknown;
  context: unknown;
}

type Rec = { at?: number; attempts?: number; error?: { message?: string; category?: string } };

/** "A.B.C" / "A.B%2EC" → the stage name of its last segment (lib/flows/machine.ts writes `.`, `#`, `\` and `%` as %XX) */
const lastSegment = (path: string) => path.split(".").at(-1)!.replace(/%([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

/** The seq of the last transition that entered `state` (a full path, or a stage's name). */
export function enteredAt(transitions: { seq: number; to: string | string[] }[], state: string): number | null {
  let best: number | null = null;
  for (const t of transitions) {
    const to = Array.isArray(t.to) ? t.to : t.to.split(",");
    if (to.some((s) => s === state || lastSegment(s) === state || s.endsWith(`.${state}`)) && (best === null || t.seq > best)) best = t.seq;
  }
  return best;
}

export function runFailure(run: FailedRun, transitions: { seq: number; from: string | string[]; to: string | string[] }[], flow?: Pick<FlowConfig, "steps"> | null): RunFailure | null {
  if (run.status !== "failed") return null;
  const err = (run.error ?? null) as { state?: string; message?: string; category?: string; retry?: { fork?: { seq?: number } } } | null;
  const ctx = (run.context ?? {}) as { steps?: Record<string, Rec>; error?: { message?: string; state?: string; category?: string } | null };
  // a user workflow: the step that failed last
  let step: [string, Rec] | null = null;
  if (flow?.steps) {
    for (const [stage, rec] of Object.entries(ctx.steps ?? {})) {
      if (!rec?.error || !own(flow.steps, stage)) continue;
      if (!step || (rec.at ?? 0) >= (step[1].at ?? 0)) step = [stage, rec];
    }
  }
  const last = [...transitions].sort((a, b) => b.seq - a.seq)[0];
  const fromOf = (t: typeof last) => (t ? (Array.isArray(t.from) ? t.from : t.from.split(",")).filter(Boolean) : []);
  // a built-in's own error record (context.error) says more than the engine's summary of it
  const state = (err?.retry ? err.state : undefined) ?? step?.[0] ?? ctx.error?.state ?? err?.state ?? (fromOf(last)[0] ? lastSegment(fromOf(last)[0]!) : "");
  const message = (err?.retry ? err.message : undefined) ?? step?.[1].error?.message ?? ctx.error?.message ?? err?.message ?? "the run failed";
  const attemptsText = /\(after (\d+) attempts\)/.exec(message);
  const attempts = step ? (typeof step[1].attempts === "number" ? step[1].attempts : attemptsText ? Number(attemptsText[1]) : 1) : attemptsText ? Number(attemptsText[1]) : null;
  const forkSeq = err?.retry?.fork?.seq;
  // a failed step (or an effect the engine stopped restarting) is retried; a built-in's own failure states are not guessed at
  const seq = typeof forkSeq === "number" ? forkSeq : step ? enteredAt(transitions, step[0]) : null;
  return {
    state: step && !err?.retry ? step[0] : state || "(unknown)",
    message,
    category: step?.[1].error?.category ?? err?.category ?? ctx.error?.category ?? null,
    attempts,
    retry: seq !== null && seq !== undefined ? { seq } : null,
  };
}
