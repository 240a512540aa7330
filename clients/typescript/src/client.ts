// A small typed client for Switchyard's REST API, on fetch alone: start runs, send events, list
// and decide reviews, and claim and report external tasks (the worker loop is in worker.ts).
import { SwitchyardError, sleep } from "./errors.js";
import { work, type TaskHandler, type WorkOptions, type WorkStats } from "./worker.js";
import type { DecisionPayload, DecisionResult, ErrorBody, EventResult, Review, ReviewQuery, Run, RunEvent, RunList, RunQuery, Task, HeartbeatResult, CompleteResult, FailResult } from "./types.js";

export interface SwitchyardOptions {
  /** e.g. "http://localhost:3000" */
  baseUrl: string;
  /** an API token (sy_…), sent as `Authorization: Bearer`, when accounts are on */
  token?: string;
  /** another fetch (tests, proxies); the global one by default */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  /** `Idempotency-Key`: a repeat with the same key answers as the first request did, and does nothing twice */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

const isAbort = (e: unknown) => e instanceof Error && (e.name === "AbortError" || e.name === "TimeoutError");

export class Switchyard {
  readonly baseUrl: string;
  readonly #token?: string;
  readonly #fetch: typeof fetch;

  constructor(opts: SwitchyardOptions) {
    if (!opts?.baseUrl) throw new TypeError("Switchyard: baseUrl is required (e.g. http://localhost:3000)");
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.#token = opts.token || undefined;
    this.#fetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /**
   * One call. Answers the parsed JSON body (null for 204); throws SwitchyardError for any other
   * status than 2xx, and for a server that cannot be reached (status 0). An abort is rethrown as is.
   */
  async request<T>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<{ status: number; body: T; headers: Headers }> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.#token) headers.authorization = `Bearer ${this.#token}`;
    if (opts.idempotencyKey !== undefined) headers["idempotency-key"] = opts.idempotencyKey;
    let res: Response;
    try {
      res = await this.#fetch(`${this.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: opts.signal });
    } catch (e) {
      if (isAbort(e)) throw e;
      throw new SwitchyardError({ status: 0, code: "network", message: `${method} ${path}: ${(e as Error)?.message ?? String(e)}`, body: null, method, path, cause: e });
    }
    const text = await res.text();
    let parsed: unknown = null;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = null;
      }
    }
    if (!res.ok) {
      const err = parsed && typeof parsed === "object" && typeof (parsed as ErrorBody).error === "string" ? (parsed as ErrorBody) : null;
      const message = err?.error ?? (text.slice(0, 500) || res.statusText || "no answer");
      throw new SwitchyardError({ status: res.status, code: err?.code ?? `http_${res.status}`, message, body: err, method, path });
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  // ---- runs ----

  /** POST /api/runs: start a run of `workflow` with `input`. */
  async startRun(workflow: string, input: unknown = {}, opts: RequestOptions = {}): Promise<Run> {
    return (await this.request<Run>("POST", "/api/runs", { workflow, input }, opts)).body;
  }

  /** GET /api/runs/{id} */
  async getRun(id: string, opts: { signal?: AbortSignal } = {}): Promise<Run> {
    return (await this.request<Run>("GET", `/api/runs/${encodeURIComponent(id)}`, undefined, opts)).body;
  }

  /** GET /api/runs, newest first */
  async listRuns(q: RunQuery = {}, opts: { signal?: AbortSignal } = {}): Promise<RunList> {
    const s = new URLSearchParams();
    if (q.status?.length) s.set("status", q.status.join(","));
    if (q.workflow) s.set("workflow", q.workflow);
    if (q.waiting !== undefined) s.set("waiting", String(q.waiting));
    if (q.limit !== undefined) s.set("limit", String(q.limit));
    if (q.offset !== undefined) s.set("offset", String(q.offset));
    const qs = s.toString();
    return (await this.request<RunList>("GET", `/api/runs${qs ? `?${qs}` : ""}`, undefined, opts)).body;
  }

  /** POST /api/runs/{id}/events: send an event (409 when the run's state does not accept it now). */
  async sendEvent(runId: string, event: RunEvent, opts: RequestOptions = {}): Promise<EventResult> {
    return (await this.request<EventResult>("POST", `/api/runs/${encodeURIComponent(runId)}/events`, event, opts)).body;
  }

  /**
   * Poll GET /api/runs/{id} until `until(run)` holds (by default: the run is no longer running or
   * waiting), every `intervalMs`; throws after `timeoutMs`.
   */
  async waitForRun(runId: string, opts: { until?: (run: Run) => boolean; timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {}): Promise<Run> {
    const until = opts.until ?? ((r: Run) => r.status !== "running" && r.status !== "waiting");
    const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
    for (;;) {
      const run = await this.getRun(runId, { signal: opts.signal });
      if (until(run)) return run;
      if (Date.now() > deadline) throw new Error(`run ${runId} did not reach the awaited condition in ${opts.timeoutMs ?? 60_000} ms (status ${run.status}, state ${run.state.join(", ")})`);
      await sleep(opts.intervalMs ?? 250, opts.signal);
    }
  }

  // ---- reviews ----

  /** GET /api/reviews: oldest first, each with its decisions, their body schemas and its approvals. */
  async listReviews(q: ReviewQuery = {}, opts: { signal?: AbortSignal } = {}): Promise<Review[]> {
    const s = new URLSearchParams();
    if (q.status) s.set("status", q.status);
    if (q.runId) s.set("runId", q.runId);
    if (q.limit !== undefined) s.set("limit", String(q.limit));
    if (q.assigned) s.set("assigned", q.assigned);
    if (q.overdue) s.set("overdue", "true");
    const qs = s.toString();
    return (await this.request<Review[]>("GET", `/api/reviews${qs ? `?${qs}` : ""}`, undefined, opts)).body;
  }

  /** GET /api/reviews/{id} */
  async getReview(id: string, opts: { signal?: AbortSignal } = {}): Promise<Review> {
    return (await this.request<Review>("GET", `/api/reviews/${encodeURIComponent(id)}`, undefined, opts)).body;
  }

  /**
   * POST /api/reviews/{id}/decision. `decision` is one of the review's `decisions`; the payload is
   * what its `decisionSchemas[decision]` describes besides `decision`. A review already decided, or
   * left behind by its run, is a 409 (SwitchyardError).
   */
  async decide(reviewId: string, decision: string, payload: DecisionPayload = {}, opts: RequestOptions = {}): Promise<DecisionResult> {
    return (await this.request<DecisionResult>("POST", `/api/reviews/${encodeURIComponent(reviewId)}/decision`, { decision, ...payload }, opts)).body;
  }

  // ---- external tasks ----

  /** The worker loop (worker.ts): claim tasks of `queue`, run `handler` on each, report, until `opts.signal` aborts. */
  work(queue: string, handler: TaskHandler, opts: WorkOptions): Promise<WorkStats> {
    return work(this, queue, handler, opts);
  }

  /** POST /api/tasks/claim: a task of `queue`, or null when none came within `waitMs` (204). */
  async claimTask(queue: string, worker: string, waitMs?: number, opts: { signal?: AbortSignal } = {}): Promise<Task | null> {
    const r = await this.request<Task | null>("POST", "/api/tasks/claim", { queue, worker, ...(waitMs !== undefined ? { waitMs } : {}) }, opts);
    return r.status === 204 ? null : r.body;
  }

  /**
   * POST /api/tasks/{id}/heartbeat: extend the lease. `task` is the claimed Task (or its id, with
   * `opts.leaseToken`). 409 `lease_lost` when the lease token is no longer the task's current claim's.
   */
  async heartbeat(task: TaskRef | string, opts: TaskCallOptions = {}): Promise<HeartbeatResult> {
    const { id, body } = leaseOf(task, opts);
    return (await this.request<HeartbeatResult>("POST", `/api/tasks/${encodeURIComponent(id)}/heartbeat`, body, opts)).body;
  }

  /**
   * POST /api/tasks/{id}/complete with the step's output. Twice with the same lease is a no-op (the
   * first result is answered); a run that left the stage is a 409 `run_moved_on`, a lost lease a
   * 409 `lease_lost`.
   */
  async complete(task: TaskRef | string, output: unknown, opts: TaskCallOptions = {}): Promise<CompleteResult> {
    const { id, body } = leaseOf(task, opts);
    return (await this.request<CompleteResult>("POST", `/api/tasks/${encodeURIComponent(id)}/complete`, { output: output === undefined ? null : output, ...body }, opts)).body;
  }

  /** POST /api/tasks/{id}/fail: `retryable` offers the task again (while the step has attempts left); otherwise the step fails. */
  async fail(task: TaskRef | string, error: string | { message: string; category?: string }, retryable: boolean, opts: TaskCallOptions = {}): Promise<FailResult> {
    const { id, body } = leaseOf(task, opts);
    return (await this.request<FailResult>("POST", `/api/tasks/${encodeURIComponent(id)}/fail`, { error, retryable, ...body }, opts)).body;
  }
}

/** A claimed task as heartbeat, complete and fail need it: its id and the lease token its claim carried. */
export type TaskRef = Pick<Task, "id" | "leaseToken"> & Partial<Pick<Task, "attempt">>;

/**
 * Options of a task call. `leaseToken` is needed only when the task is given by its id; `worker`
 * and `attempt` are informational (the server checks the lease token, not them).
 */
export interface TaskCallOptions {
  leaseToken?: string;
  worker?: string;
  attempt?: number;
  signal?: AbortSignal;
}

function leaseOf(task: TaskRef | string, o: TaskCallOptions): { id: string; body: Record<string, unknown> } {
  const id = typeof task === "string" ? task : task.id;
  const leaseToken = o.leaseToken ?? (typeof task === "string" ? undefined : task.leaseToken);
  if (!leaseToken) throw new TypeError(`task ${id}: a lease token is needed (pass the claimed Task, or { leaseToken } with its id)`);
  const attempt = o.attempt ?? (typeof task === "string" ? undefined : task.attempt);
  return { id, body: { leaseToken, ...(o.worker !== undefined ? { worker: o.worker } : {}), ...(attempt !== undefined ? { attempt } : {}) } };
}
