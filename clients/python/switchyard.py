"""Switchyard's Python client: one module, standard library only (Python 3.8+).

No install step: copy this file next to your code, or put its folder on PYTHONPATH
(``PYTHONPATH=clients/python python3 your_worker.py``).

    import switchyard

    sy = switchyard.Switchyard("http://localhost:3000", token=None)   # or SWITCHYARD_URL / SWITCHYARD_TOKEN
    run = sy.start_run("post-pipeline", {"topic": "tide pools"}, idempotency_key="tide-1")
    review = sy.list_reviews(run_id=run["id"], status="pending")[0]
    sy.decide(review["id"], "approve", reviewer="ana")

    def notify(task):                       # the work of an `external: { queue }` step
        post = task.input["steps"]["DRAFT"]["output"]
        if not post:
            raise switchyard.TaskFailure("nothing to notify", retryable=False)
        return {"notified": True}           # the step's output (any JSON value)

    switchyard.work("publisher", notify, concurrency=4)   # until SIGTERM / Ctrl-C

``work`` claims tasks (long-poll), keeps each claim's lease alive with heartbeats while the handler
runs, completes the task with the handler's return value or fails it with the exception it raised,
and on SIGTERM or SIGINT stops cleanly: no new claims, the tasks in hand are finished and reported,
then it returns its counts. Every report carries the claim's lease token: a worker whose lease ran
out (and whose task went to another worker) is refused (409 ``lease_lost``) instead of overwriting
the other's result.

With traces on at the server (OTEL_EXPORTER_OTLP_ENDPOINT), a claimed task carries the W3C
``traceparent`` of its step's span (``task.traceparent``; None when traces are off): hand it to your
own tracing to put your work in the run's trace. Heartbeat, complete and fail send it back as the
``traceparent`` header, so the server's spans of those requests join the run's trace. This module
exports no spans itself.
"""

import json
import os
import signal
import socket
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

__all__ = ["Switchyard", "SwitchyardError", "TaskFailure", "Task", "work"]

MAX_WAIT_MS = 30000


class SwitchyardError(Exception):
    """A request the server refused or could not answer.

    ``status`` is the HTTP status (0: the server was not reached), ``code`` and ``message`` the
    server's own (``{"error", "code"}``), ``issues`` the validation issues of a 422.
    """

    def __init__(self, status, code, message, body=None, method="", path=""):
        super().__init__(f"{method} {path}: {status} {code}: {message}" if method else f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.body = body
        self.method = method
        self.path = path

    @property
    def issues(self):
        return (self.body or {}).get("issues") or []


class TaskFailure(Exception):
    """Raised by a handler to say how its task failed.

    ``retryable=True`` asks for the task to be offered again (within the step's ``retry``), ``False``
    fails the step at once (it takes its ``on_error`` route). Any other exception a handler raises
    counts as retryable, unless it has an attribute ``retryable = False``.
    """

    def __init__(self, message, retryable=False, category=None):
        super().__init__(message)
        self.retryable = retryable
        self.category = category


class Task:
    """A claimed task: what ``claim_task`` returns and a ``work`` handler gets.

    ``input`` is what its stage knows (``{"input": the run's input, "steps": {STAGE: {"output": ...}},
    "review": the last review}`` for a user workflow's step). ``traceparent`` is the W3C trace context
    of its step's span when the server exports traces, else None. ``lost`` is set when the server says
    the lease is gone (the result would be refused); ``stopping`` when the worker was asked to stop.
    """

    def __init__(self, data):
        self.data = data
        self.id = data["id"]
        self.run_id = data.get("runId")
        self.stage = data.get("stage")
        self.input = data.get("input")
        self.attempt = data.get("attempt", 1)
        self.lease_ms = data.get("leaseMs", 30000)
        self.lease_token = data["leaseToken"]
        self.traceparent = data.get("traceparent") or None
        self.lost = threading.Event()
        self.stopping = threading.Event()

    def __repr__(self):
        return f"Task(id={self.id!r}, run_id={self.run_id!r}, stage={self.stage!r}, attempt={self.attempt})"


def _gone(e):
    """404, 409, 410: the task is not ours any more (lease lost, run moved on)."""
    return isinstance(e, SwitchyardError) and e.status in (404, 409, 410)


def _refused(e):
    """A 4xx the server will answer the same however often it is sent."""
    return isinstance(e, SwitchyardError) and 400 <= e.status < 500 and e.status not in (408, 429)


class Switchyard:
    """A client of one Switchyard server. ``base_url`` and ``token`` default to SWITCHYARD_URL and SWITCHYARD_TOKEN."""

    def __init__(self, base_url=None, token=None, timeout=60.0):
        self.base_url = (base_url or os.environ.get("SWITCHYARD_URL") or "http://localhost:3000").rstrip("/")
        self.token = token if token is not None else (os.environ.get("SWITCHYARD_TOKEN") or None)
        self.timeout = timeout

    # ---- plumbing ----

    def request(self, method, path, body=None, idempotency_key=None, timeout=None, traceparent=None):
        """One call: the parsed JSON answer (None for 204). Raises SwitchyardError for any status but 2xx."""
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.base_url + path, data=data, method=method)
        req.add_header("accept", "application/json")
        if data is not None:
            req.add_header("content-type", "application/json")
        if self.token:
            req.add_header("authorization", "Bearer " + self.token)
        if idempotency_key is not None:
            req.add_header("idempotency-key", idempotency_key)
        if traceparent:
            req.add_header("traceparent", traceparent)
        try:
            with urllib.request.urlopen(req, timeout=timeout or self.timeout) as res:
                text = res.read().decode("utf-8")
                return json.loads(text) if text else None
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")
            try:
                err = json.loads(text)
            except ValueError:
                err = None
            if not isinstance(err, dict) or not isinstance(err.get("error"), str):
                err = None
            message = err["error"] if err else (text[:500] or str(e.reason))
            raise SwitchyardError(e.code, (err or {}).get("code") or f"http_{e.code}", message, err, method, path) from None
        except (urllib.error.URLError, OSError) as e:
            raise SwitchyardError(0, "network", str(getattr(e, "reason", e)), None, method, path) from None

    @staticmethod
    def _query(**params):
        q = {k: v for k, v in params.items() if v is not None}
        return ("?" + urllib.parse.urlencode(q)) if q else ""

    @staticmethod
    def _id(value):
        return urllib.parse.quote(str(value), safe="")

    # ---- runs ----

    def start_run(self, workflow, input=None, idempotency_key=None):
        """POST /api/runs: the new run (with ``idempotency_key``, a repeat answers with the same run)."""
        return self.request("POST", "/api/runs", {"workflow": workflow, "input": {} if input is None else input}, idempotency_key)

    def get_run(self, run_id):
        """GET /api/runs/{id}"""
        return self.request("GET", f"/api/runs/{self._id(run_id)}")

    def list_runs(self, status=None, workflow=None, limit=None, offset=None):
        """GET /api/runs, newest first: {"runs", "total", "counts"}."""
        return self.request("GET", "/api/runs" + self._query(status=",".join(status) if isinstance(status, (list, tuple)) else status, workflow=workflow, limit=limit, offset=offset))

    def send_event(self, run_id, event, idempotency_key=None):
        """POST /api/runs/{id}/events: {"run", "transitions"} (409 when the run's state does not take it now)."""
        return self.request("POST", f"/api/runs/{self._id(run_id)}/events", event, idempotency_key)

    def wait_for_run(self, run_id, until=None, timeout=60.0, interval=0.25):
        """Poll get_run until ``until(run)`` holds (by default: the run is no longer running or waiting)."""
        until = until or (lambda r: r["status"] not in ("running", "waiting"))
        deadline = time.monotonic() + timeout
        while True:
            run = self.get_run(run_id)
            if until(run):
                return run
            if time.monotonic() > deadline:
                raise TimeoutError(f"run {run_id} did not reach the awaited condition in {timeout} s (status {run['status']})")
            time.sleep(interval)

    # ---- reviews ----

    def list_reviews(self, status=None, run_id=None, limit=None):
        """GET /api/reviews: oldest first, each with its ``decisions``, ``decisionSchemas`` and ``approvals``."""
        return self.request("GET", "/api/reviews" + self._query(status=status, runId=run_id, limit=limit))

    def get_review(self, review_id):
        """GET /api/reviews/{id}"""
        return self.request("GET", f"/api/reviews/{self._id(review_id)}")

    def decide(self, review_id, decision, feedback=None, reviewer=None, modifications=None, data=None, idempotency_key=None):
        """POST /api/reviews/{id}/decision: {"review", "run", "transitions"}; a review already decided is a 409."""
        body = {"decision": decision}
        for k, v in (("feedback", feedback), ("reviewer", reviewer), ("modifications", modifications), ("data", data)):
            if v is not None:
                body[k] = v
        return self.request("POST", f"/api/reviews/{self._id(review_id)}/decision", body, idempotency_key)

    # ---- external tasks ----

    def claim_task(self, queue, worker, wait_ms=0):
        """POST /api/tasks/claim: a Task of ``queue``, or None when none came within ``wait_ms`` (at most 30,000)."""
        wait_ms = max(0, min(int(wait_ms), MAX_WAIT_MS))
        # the socket waits a little longer than the server's long-poll
        body = self.request("POST", "/api/tasks/claim", {"queue": queue, "worker": worker, "waitMs": wait_ms}, timeout=wait_ms / 1000 + 15)
        return Task(body) if body else None

    def _lease(self, task, worker=None):
        body = {"leaseToken": task.lease_token, "attempt": task.attempt}
        if worker:
            body["worker"] = worker
        return body

    def heartbeat(self, task, worker=None):
        """POST /api/tasks/{id}/heartbeat: extend the lease (409 ``lease_lost`` when this claim no longer holds it)."""
        return self.request("POST", f"/api/tasks/{self._id(task.id)}/heartbeat", self._lease(task, worker), traceparent=task.traceparent)

    def complete(self, task, output, worker=None):
        """POST /api/tasks/{id}/complete: again with the same lease answers the first result."""
        return self.request("POST", f"/api/tasks/{self._id(task.id)}/complete", dict(self._lease(task, worker), output=output), traceparent=task.traceparent)

    def fail(self, task, error, retryable, worker=None, category=None):
        """POST /api/tasks/{id}/fail: ``retryable`` offers the task again while the step has attempts left."""
        message = (str(error) or "failed")[:10000]
        err = {"message": message, "category": category} if category else message
        return self.request("POST", f"/api/tasks/{self._id(task.id)}/fail", dict(self._lease(task, worker), error=err, retryable=bool(retryable)), traceparent=task.traceparent)

    def work(self, queue, handler, concurrency=1, worker=None, wait_ms=20000, max_tasks=None, stop=None, handle_signals=True, on_report=None, log=None, heartbeat_fraction=1 / 3):
        """Do the tasks of ``queue`` with ``handler(task) -> output``, ``concurrency`` at a time.

        Runs until SIGTERM/SIGINT (when called from the main thread and ``handle_signals``), until
        ``stop`` (a threading.Event) is set, or until ``max_tasks`` tasks were claimed and reported.
        Then no new task is claimed, the tasks in hand are finished and reported, and it returns
        ``{"claimed", "completed", "failed", "lost"}`` (lost: the server no longer took the result:
        the lease ran out and the task went to another worker, or the run moved on). A second
        signal leaves at once. A claim the server refuses with a 4xx (a bad queue name, no or a
        wrong token, a queue the token may not claim from) raises SwitchyardError.
        """
        return _Worker(self, queue, handler, concurrency, worker, wait_ms, max_tasks, stop, handle_signals, on_report, log, heartbeat_fraction).run()


def work(queue, handler, concurrency=1, **options):
    """``Switchyard().work(...)`` on SWITCHYARD_URL and SWITCHYARD_TOKEN: see Switchyard.work."""
    client = options.pop("client", None) or Switchyard(options.pop("base_url", None), options.pop("token", None))
    return client.work(queue, handler, concurrency=concurrency, **options)


def _log(*parts):
    print(time.strftime("%H:%M:%S"), *parts, file=sys.stderr, flush=True)


class _Heartbeat(threading.Thread):
    """Extends one task's lease every lease_ms × fraction until stopped; sets task.lost on 404/409/410."""

    def __init__(self, client, task, worker, fraction, log):
        super().__init__(daemon=True, name=f"switchyard-heartbeat-{task.id[:8]}")
        self.client, self.task, self.worker, self.log = client, task, worker, log
        self.every = max(0.1, task.lease_ms * fraction / 1000)
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(self.every):
            try:
                self.client.heartbeat(self.task, self.worker)
            except SwitchyardError as e:
                self.log(f"heartbeat of task {self.task.id} failed: {e.message}")
                if _gone(e):
                    self.task.lost.set()
                    return


class _Worker:
    def __init__(self, client, queue, handler, concurrency, worker, wait_ms, max_tasks, stop, handle_signals, on_report, log, fraction):
        if not callable(handler):
            raise TypeError("work(): handler must be callable: handler(task) -> output")
        self.client, self.queue, self.handler = client, queue, handler
        self.n = max(1, int(concurrency))
        if max_tasks is not None:
            self.n = max(1, min(self.n, int(max_tasks)))
        self.worker = worker or f"py-{socket.gethostname()}-{os.getpid()}"
        self.wait_ms = max(0, min(int(wait_ms), MAX_WAIT_MS))
        self.max_tasks = max_tasks
        self.stop = stop or threading.Event()
        self.handle_signals = handle_signals
        self.on_report = on_report
        self.log = log or _log
        self.fraction = fraction
        self.stats = {"claimed": 0, "completed": 0, "failed": 0, "lost": 0}
        self.lock = threading.Lock()
        # claims in flight count against max_tasks, so that slots never take more than asked
        self.reserved = 0
        # slots working on a task (they are waited for on a stop; slots in a long-poll are not)
        self.busy = 0
        self.idle = threading.Condition(self.lock)
        self.refusal = None
        self.finished = False
        self.in_hand = set()

    # ---- the loop of one slot ----

    def _take_slot(self):
        with self.lock:
            if self.stop.is_set():
                return False
            if self.max_tasks is not None and self.stats["claimed"] + self.reserved >= self.max_tasks:
                return False
            self.reserved += 1
            return True

    def _slot(self):
        delay = 0.25
        while self._take_slot():
            asked = time.monotonic()
            try:
                task = self.client.claim_task(self.queue, self.worker, self.wait_ms)
            except SwitchyardError as e:
                with self.lock:
                    self.reserved -= 1
                if self.stop.is_set():
                    return
                if _refused(e):
                    self.refusal = e
                    self.stop.set()
                    return
                self.log(f"claim failed: {e.message}; trying again in {delay:.2f} s")
                self.stop.wait(delay)
                delay = min(delay * 2, 10)
                continue
            with self.lock:
                self.reserved -= 1
                if task is not None:
                    if self.finished:
                        # work() has returned (the poll was left behind): the lease runs out and the task is offered again
                        return
                    self.stats["claimed"] += 1
                    self.busy += 1
            delay = 0.25
            if task is None:
                # an empty answer well before the long-poll's end: pause, do not spin
                if self.wait_ms == 0 or time.monotonic() - asked < self.wait_ms / 2000:
                    self.stop.wait(0.25)
                continue
            try:
                self._do(task)
            finally:
                with self.lock:
                    self.busy -= 1
                    self.idle.notify_all()

    def _do(self, task):
        if self.stop.is_set():
            task.stopping.set()
        self.in_hand.add(task)
        beat = _Heartbeat(self.client, task, self.worker, self.fraction, self.log)
        beat.start()
        try:
            try:
                output = self.handler(task)
            except Exception as e:  # the handler's failure is the task's, reported to the server
                beat.done.set()
                retryable = getattr(e, "retryable", True) is not False
                self.log(f"task {task.id} failed ({'retryable' if retryable else 'not retryable'}): {e}")
                self._report(task, lambda: self.client.fail(task, str(e) or type(e).__name__, retryable, self.worker, getattr(e, "category", None)), "failed")
                return
            finally:
                beat.done.set()
            self._report(task, lambda: self.client.complete(task, output, self.worker), "completed")
        finally:
            self.in_hand.discard(task)

    def _report(self, task, send, outcome):
        delay = 0.25
        for attempt in range(6):
            try:
                send()
                self._count(task, outcome, None)
                return
            except SwitchyardError as e:
                if _gone(e) or _refused(e):
                    self.log(f"task {task.id}: the server did not take the result: {e.message}")
                    self._count(task, "lost", e)
                    return
                if attempt == 5:
                    self.log(f"task {task.id}: gave up reporting ({e.message}); its lease runs out and it is offered again")
                    self._count(task, "lost", e)
                    return
                self.log(f"task {task.id}: reporting failed ({e.message}); trying again in {delay:.2f} s")
                time.sleep(delay)
                delay = min(delay * 2, 10)

    def _count(self, task, outcome, detail):
        with self.lock:
            self.stats[outcome] += 1
        if self.on_report:
            self.on_report(task, outcome, detail)

    # ---- the whole ----

    def _on_signal(self, signum, _frame):
        if self.stop.is_set():
            raise SystemExit(130)  # a second signal: leave at once
        self.log(f"stopping ({signal.Signals(signum).name}): no new claims; the tasks in hand are finished first")
        self.stop.set()

    def run(self):
        installed = {}
        if self.handle_signals and threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                installed[sig] = signal.signal(sig, self._on_signal)
        slots = [threading.Thread(target=self._slot, daemon=True, name=f"switchyard-slot-{i}") for i in range(self.n)]
        try:
            for t in slots:
                t.start()
            # wait for a stop, or for every slot to end (max_tasks reached, a refusal)
            while not self.stop.is_set() and any(t.is_alive() for t in slots):
                self.stop.wait(0.2)
            for task in list(self.in_hand):
                task.stopping.set()
            # the tasks in hand are finished and reported; slots in a long-poll are left behind
            with self.lock:
                while self.busy > 0:
                    self.idle.wait(0.2)
                self.finished = True
        finally:
            for sig, previous in installed.items():
                signal.signal(sig, previous)
        if self.refusal is not None:
            raise self.refusal
        return dict(self.stats)
