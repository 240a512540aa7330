// A small typed client for Switchyard's REST API, on fetch alone: start runs, send events, list
// and decide reviews, and claim and report external tasks (the worker loop is in worker.ts).
import { SwitchyardError, sleep } from "./errors.js";
import { work, type TaskHandler, type WorkOptions, type WorkStats } from "./worker.js";
import { readEvents } from "./sse.js";
import type {
  DecisionPayload,
  DecisionResult,
  ErrorBody,
  EventResult,
  ImportedWorkflow,
  NewSchedule,
  Review,
  ReviewQuery,
  Run,
  RunEvent,
  RunList,
  RunQuery,
  RunStreamEvent,
  Schedule,
  Task,
  Transition,
  HeartbeatResult,
  CompleteResult,
  FailResult,
  WorkflowCheck,
  WorkflowSource,
} from "./types.js";

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
  /** a W3C `traceparent` header: the server's span of this request joins that trace */
  traceparent?: string | null;
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
    const { res, text } = await this.#send(method, path, body, opts, "application/json");
    let parsed: unknown = null;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = null;
      }
    }
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  /** One call whose answer is text (an export); throws SwitchyardError as request() does. */
  async requestText(method: string, path: string, opts: RequestOptions = {}): Promise<string> {
    return (await this.#send(method, path, undefined, opts, "*/*")).text;
  }

  async #send(method: string, path: string, body: unknown, opts: RequestOptions, accept: string): Promise<{ res: Response; text: string }> {
    const res = await this.#open(method, path, body, opts, accept);
    const text = await res.text();
    if (!res.ok) throw this.#refused(res, text, method, path);
    return { res, text };
  }

  async #open(method: string, path: string, body: unknown, opts: RequestOptions, accept: string): Promise<Response> {
    const headers: Record<string, string> = { accept };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.#token) headers.authorization = `Bearer ${this.#token}`;
    if (opts.idempotencyKey !== undefined) headers["idempotency-key"] = opts.idempotencyKey;
    if (opts.traceparent) headers.traceparent = opts.traceparent;
    let res: Response;
    try {
      res = await this.#fetch(`${this.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: opts.signal });
    } catch (e) {
      if (isAbort(e)) throw e;
      const cause = (e as { cause?: { message?: string } })?.cause?.message;
      throw new SwitchyardError({ status: 0, code: "network", message: `${method} ${path}: ${(e as Error)?.message ?? String(e)}${cause ? ` (${cause})` : ""}`, body: null, method, path, cause: e });
    }
    return res;
  }

  #refused(res: Response, text: string, method: string, path: string): SwitchyardError {
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    const err = parsed && typeof parsed === "object" && typeof (parsed as ErrorBody).error === "string" ? (parsed as ErrorBody) : null;
    const message = err?.error ?? (text.slice(0, 500) || res.statusText || "no answer");
    return new SwitchyardError({ status: res.status, code: err?.code ?? `http_${res.status}`, message, body: err, method, path });
  }

  // ---- runs ----

  /** POST /api/runs: start a run of `workflow` with `input` (`name`: what the run is called). */
  async startRun(workflow: string, input: unknown = {}, opts: RequestOptions & { name?: string } = {}): Promise<Run> {
    return (await this.request<Run>("POST", "/api/runs", { workflow, input, ...(opts.name !== undefined ? { name: opts.name } : {}) }, opts)).body;
  }

  /** POST /api/runs/{id}/abort */
  async abortRun(id: string, reason?: string, opts: RequestOptions = {}): Promise<EventResult> {
    return (await this.request<EventResult>("POST", `/api/runs/${encodeURIComponent(id)}/abort`, reason !== undefined ? { reason } : {}, opts)).body;
  }

  /** GET /api/runs/{id}/transitions?after= */
  async transitions(id: string, after = 0, opts: { signal?: AbortSignal } = {}): Promise<Transition[]> {
    return (await this.request<Transition[]>("GET", `/api/runs/${encodeURIComponent(id)}/transitions?after=${after}`, undefined, opts)).body;
  }

  /**
   * GET /api/runs/{id}/stream: the run's Server-Sent Events, `hello` (the run now) first, then `run`
   * (each commit, with its transitions), `review`, `progress`, `hook`. Ends when the server closes
   * the stream or `signal` aborts. A run that does not exist is a SwitchyardError (404).
   */
  async *streamRun(id: string, opts: { signal?: AbortSignal } = {}): AsyncGenerator<RunStreamEvent> {
    const path = `/api/runs/${encodeURIComponent(id)}/stream`;
    const res = await this.#open("GET", path, undefined, opts, "text/event-stream");
    if (!res.ok) throw this.#refused(res, await res.text(), "GET", path);
    if (!res.body) return;
    for await (const e of readEvents(res.body)) yield e as RunStreamEvent;
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

  // ---- workflows ----

  /** POST /api/workflows: save a definition (a new version; `created: false` when unchanged). 422 lists its issues with lines. */
  async importWorkflow(source: WorkflowSource, opts: RequestOptions = {}): Promise<ImportedWorkflow> {
    return (await this.request<ImportedWorkflow>("POST", "/api/workflows", source, opts)).body;
  }

  /** POST /api/workflows?dryRun=true: the server's checks of a definition (errors, warnings with lines); nothing is saved. */
  async validateWorkflow(source: WorkflowSource, opts: RequestOptions = {}): Promise<WorkflowCheck> {
    return (await this.request<WorkflowCheck>("POST", "/api/workflows?dryRun=true", source, opts)).body;
  }

  /** GET /api/workflows/{id}/export: the definition as JSON (a StateConfig) or Mermaid text. */
  async exportWorkflow(id: string, format: "json" | "mermaid" = "json", opts: { signal?: AbortSignal } = {}): Promise<string> {
    return this.requestText("GET", `/api/workflows/${encodeURIComponent(id)}/export?format=${format}`, opts);
  }

  // ---- schedules ----

  /** GET /api/schedules */
  async listSchedules(opts: { signal?: AbortSignal } = {}): Promise<Schedule[]> {
    return (await this.request<{ schedules: Schedule[] }>("GET", "/api/schedules", undefined, opts)).body.schedules;
  }

  /** POST /api/schedules → the schedule (201) */
  async createSchedule(schedule: NewSchedule, opts: RequestOptions = {}): Promise<Schedule> {
    return (await this.request<{ schedule: Schedule }>("POST", "/api/schedules", schedule, opts)).body.schedule;
  }

  /** PATCH /api/schedules/{id} (`{ paused: true }` pauses) */
  async updateSchedule(id: string, changes: Partial<NewSchedule>, opts: RequestOptions = {}): Promise<Schedule> {
    return (await this.request<{ schedule: Schedule }>("PATCH", `/api/schedules/${encodeURIComponent(id)}`, changes, opts)).body.schedule;
  }

  /** DELETE /api/schedules/{id} (its runs stay) */
  async deleteSchedule(id: string, opts: RequestOptions = {}): Promise<void> {
    await this.request("DELETE", `/api/schedules/${encodeURIComponent(id)}`, undefined, opts);
  }

  /** POST /api/schedules/{id}/trigger: run it now → the run */
  async triggerSchedule(id: string, opts: RequestOptions = {}): Promise<Run> {
    return (await this.request<{ run: Run }>("POST", `/api/schedules/${encodeURIComponent(id)}/trigger`, undefined, opts)).body.run;
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
    const { id, body, traceparent } = leaseOf(task, opts);
    return (await this.request<HeartbeatResult>("POST", `/api/tasks/${encodeURIComponent(id)}/heartbeat`, body, { ...opts, traceparent })).body;
  }

  /**
   * POST /api/tasks/{id}/complete with the step's output. Twice with the same lease is a no-op (the
   * first result is answered); a run that left the stage is a 409 `run_moved_on`, a lost lease a
   * 409 `lease_lost`.
   */
  async complete(task: TaskRef | string, output: unknown, opts: TaskCallOptions = {}): Promise<CompleteResult> {
    const { id, body, traceparent } = leaseOf(task, opts);
    return (await this.request<CompleteResult>("POST", `/api/tasks/${encodeURIComponent(id)}/complete`, { output: output === undefined ? null : output, ...body }, { ...opts, traceparent })).body;
  }

  /** POST /api/tasks/{id}/fail: `retryable` offers the task again (while the step has attempts left); otherwise the step fails. */
  async fail(task: TaskRef | string, error: string | { message: string; category?: string }, retryable: boolean, opts: TaskCallOptions = {}): Promise<FailResult> {
    const { id, body, traceparent } = leaseOf(task, opts);
    return (await this.request<FailResult>("POST", `/api/tasks/${encodeURIComponent(id)}/fail`, { error, retryable, ...body }, { ...opts, traceparent })).body;
  }
}

/** A claimed task as heartbeat, complete and fail need it: its id and the lease token its claim carried. */
export type TaskRef = Pick<Task, "id" | "leaseToken"> & Partial<Pick<Task, "attempt" | "traceparent">>;

/**
 * Options of a task call. `leaseToken` is needed only when the task is given by its id; `worker`
 * and `attempt` are informational (the server checks the lease token, not them).
 */
export interface TaskCallOptions {
  leaseToken?: string;
  worker?: string;
  attempt?: number;
  signal?: AbortSignal;
  /** sent as the `traceparent` header (default: the claimed Task's) */
  traceparent?: string | null;
}

function leaseOf(task: TaskRef | string, o: TaskCallOptions): { id: string; body: Record<string, unknown>; traceparent?: string | null } {
  const id = typeof task === "string" ? task : task.id;
  const leaseToken = o.leaseToken ?? (typeof task === "string" ? undefined : task.leaseToken);
  if (!leaseToken) throw new TypeError(`task ${id}: a lease token is needed (pass the claimed Task, or { leaseToken } with its id)`);
  const attempt = o.attempt ?? (typeof task === "string" ? undefined : task.attempt);
  const traceparent = o.traceparent ?? (typeof task === "string" ? undefined : task.traceparent);
  return { id, body: { leaseToken, ...(o.worker !== undefined ? { worker: o.worker } : {}), ...(attempt !== undefined ? { attempt } : {}) }, traceparent };
}
