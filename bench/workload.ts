// The benchmarks' workload: `runs` concurrent swiss-army runs, each taken through `cycles`
// review cycles (wait for HUMAN_REVIEW, decide — every fourth a rejection — then the next
// REQUEST). Progress is followed on the engine's bus.
import type { Engine } from "../lib/engine/engine";
import type { RunView } from "../lib/engine/views";

export interface Workload {
  runs: number;
  cycles: number;
  /** extra run input (e.g. timeouts) */
  config?: Record<string, number>;
  /** the bus may carry another process's commits (cluster mode): look at the run once more after listening */
  remote?: boolean;
}

export async function swissCycles(engine: Engine, w: Workload): Promise<void> {
  const waiters = new Map<string, { test: (r: RunView) => boolean; resolve: (r: RunView) => void }>();
  const off = engine.bus.subscribe("*", (msg) => {
    if (msg.type !== "run") return;
    const waiter = waiters.get(msg.run.id);
    if (waiter && waiter.test(msg.run)) {
      waiters.delete(msg.run.id);
      waiter.resolve(msg.run);
    }
  });
  const until = async (id: string, test: (r: RunView) => boolean, current: RunView): Promise<RunView> => {
    if (test(current)) return current;
    const p = new Promise<RunView>((resolve) => waiters.set(id, { test, resolve }));
    if (w.remote) {
      // the notice may have come before the waiter
      const now = await engine.getRun(id);
      if (test(now)) {
        waiters.delete(id);
        return now;
      }
    }
    return p;
  };
  const inReview = (r: RunView) => r.state[0] === "HUMAN_REVIEW" && !!r.reviewId;
  try {
    await Promise.all(
      Array.from({ length: w.runs }, async (_, i) => {
        let { run } = await engine.start("swiss-army", { request: `bench request ${i}: write a retry helper`, ...(w.config ? { config: w.config } : {}) });
        for (let c = 0; c < w.cycles; c++) {
          run = await until(run.id, inReview, run);
          run = (await engine.decide(run.reviewId!, { decision: c % 4 === 3 ? "reject" : "approve" })).run;
          if (c + 1 < w.cycles) run = (await engine.send(run.id, { type: "REQUEST", request: `bench request ${i}.${c + 1}` })).run;
        }
      }),
    );
  } finally {
    off();
  }
}
