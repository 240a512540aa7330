// `switchyard runs watch <id>`: the run's transitions as they are committed (GET /api/runs/{id}/stream),
// until the run ends. A stream that breaks (the server restarted) is opened again, and the
// transitions committed meanwhile are read from GET /api/runs/{id}/transitions, so none is missed
// or printed twice (each has its seq).
import type { Switchyard } from "./client.js";
import { EXIT, failureOf, transitionLine, where, type Io } from "./cli-output.js";
import { SwitchyardError, sleep } from "./errors.js";
import type { Run, Transition } from "./types.js";

export interface WatchOptions {
  /** end (exit 0) once the run waits (for a review, an event, a worker) instead of when it ends */
  untilWaiting?: boolean;
  /** give up after the stream could not be opened again for this long (ms) */
  reconnectFor?: number;
  signal?: AbortSignal;
}

function outcome(run: Run, untilWaiting: boolean): number | null {
  if (run.status === "completed") return EXIT.ok;
  if (run.status === "failed") return EXIT.runFailed;
  if (run.status === "aborted") return EXIT.runAborted;
  if (untilWaiting && run.status === "waiting") return EXIT.ok;
  return null;
}

export async function watchRun(client: Switchyard, id: string, io: Io, opts: WatchOptions = {}): Promise<number> {
  let last = 0;
  let first = true;
  let brokenSince: number | null = null;
  const untilWaiting = !!opts.untilWaiting;
  const show = (t: Transition) => {
    if (t.seq <= last) return;
    last = t.seq;
    io.out(io.json ? JSON.stringify({ type: "transition", runId: id, ...t }) : transitionLine(t));
  };
  const finish = (run: Run, code: number) => {
    if (io.json) io.out(JSON.stringify({ type: "end", run }));
    else {
      const why = run.status === "failed" ? failureOf(run) : null;
      const error = why ? `: ${why}` : "";
      io.out(`run ${run.id} ${where(run)}${error}`);
    }
    return code;
  };
  for (let tries = 0; ; tries++) {
    if (opts.signal?.aborted) return EXIT.ok;
    try {
      for await (const m of client.streamRun(id, { signal: opts.signal })) {
        brokenSince = null;
        tries = 0;
        let run: Run | null = null;
        if (m.event === "hello") {
          run = (m.data as { run: Run }).run;
          if (first) {
            first = false;
            if (!io.json) io.out(`run ${run.id} (${run.workflow}${run.name ? `: ${run.name}` : ""}) ${where(run)}`);
          }
          // what was committed before the stream opened (or while it was broken)
          for (const t of await client.transitions(id, last, { signal: opts.signal })) show(t);
        } else if (m.event === "run") {
          const d = m.data as { run: Run; transitions: Transition[] };
          run = d.run;
          // a gap (a commit this stream did not see) is read back first
          if (d.transitions.length && d.transitions[0]!.seq > last + 1) for (const t of await client.transitions(id, last, { signal: opts.signal })) show(t);
          for (const t of d.transitions) show(t);
        } else if (m.event === "error") {
          throw new SwitchyardError({ status: 500, code: "stream", message: String((m.data as { error?: unknown }).error ?? "the stream failed"), body: null, method: "GET", path: `/api/runs/${id}/stream` });
        }
        const code = run ? outcome(run, untilWaiting) : null;
        if (run && code !== null) return finish(run, code);
      }
    } catch (e) {
      if (opts.signal?.aborted) return EXIT.ok;
      // refused (404 unknown run, 401/403): no use trying again
      if (e instanceof SwitchyardError && e.status >= 400 && e.status < 500) throw e;
    }
    // the stream ended or broke before the run did: open it again
    const now = Date.now();
    brokenSince ??= now;
    if (tries === 0 && !io.json) io.err(`switchyard: the stream of run ${id} was cut; reconnecting…`);
    if (now - brokenSince > (opts.reconnectFor ?? 60_000)) {
      throw new SwitchyardError({ status: 0, code: "network", message: `the stream of run ${id} could not be opened again for ${Math.round((opts.reconnectFor ?? 60_000) / 1000)} s`, body: null, method: "GET", path: `/api/runs/${id}/stream` });
    }
    await sleep(Math.min(250 * 2 ** tries, 5_000), opts.signal);
  }
}
