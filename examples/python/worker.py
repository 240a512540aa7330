#!/usr/bin/env python3
"""An external worker for Switchyard in Python, standard library only.

It does the work of `external: { queue }` steps: claims a task (long-poll), heartbeats while it
works, completes it with the result or fails it, and stops cleanly on Ctrl-C (the task in hand
is finished and reported first).

    SWITCHYARD_URL=http://localhost:3000 python3 examples/python/worker.py --queue publisher
    SWITCHYARD_TOKEN=sy_...   # with accounts on: an API token with the worker role

The handler below is the post-pipeline's NOTIFY step: it "notifies" by printing the post and
answers {"notified": true, ...}. Replace `handle` with your own work. Raise TaskFailure(msg,
retryable=False) for a failure that retrying cannot fix; any other exception is reported as
retryable (the task is offered again while the step has attempts left).
"""

import argparse
import json
import os
import signal
import socket
import sys
import threading
import time
import urllib.error
import urllib.request


class TaskFailure(Exception):
    def __init__(self, message, retryable=False):
        super().__init__(message)
        self.retryable = retryable


class ApiError(Exception):
    """A request the server refused: status is the HTTP status (0: not reached), code and message are the server's."""

    def __init__(self, status, code, message):
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class Client:
    def __init__(self, base_url, token=None):
        self.base_url = base_url.rstrip("/")
        self.token = token

    def post(self, path, body, timeout=60):
        """POST JSON; returns (status, parsed body or None)."""
        data = json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.base_url + path, data=data, method="POST")
        req.add_header("content-type", "application/json")
        req.add_header("accept", "application/json")
        if self.token:
            req.add_header("authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as res:
                text = res.read().decode("utf-8")
                return res.status, (json.loads(text) if text else None)
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")
            try:
                err = json.loads(text)
            except ValueError:
                err = {"error": text[:500] or e.reason}
            raise ApiError(e.code, err.get("code", "http_%d" % e.code), err.get("error", str(e.reason))) from None
        except (urllib.error.URLError, OSError) as e:
            raise ApiError(0, "network", str(getattr(e, "reason", e))) from None

    def claim(self, queue, worker, wait_ms):
        # the socket waits a little longer than the server's long-poll
        status, body = self.post("/api/tasks/claim", {"queue": queue, "worker": worker, "waitMs": wait_ms}, timeout=wait_ms / 1000 + 15)
        return None if status == 204 else body

    def heartbeat(self, task_id, worker, attempt):
        return self.post(f"/api/tasks/{task_id}/heartbeat", {"worker": worker, "attempt": attempt})[1]

    def complete(self, task_id, output, worker, attempt):
        return self.post(f"/api/tasks/{task_id}/complete", {"output": output, "worker": worker, "attempt": attempt})[1]

    def fail(self, task_id, error, retryable, worker, attempt):
        return self.post(f"/api/tasks/{task_id}/fail", {"error": error[:10000] or "failed", "retryable": retryable, "worker": worker, "attempt": attempt})[1]


def log(*parts):
    print(time.strftime("%H:%M:%S"), *parts, flush=True)


def handle(task, worker):
    """The work: the post-pipeline's NOTIFY step. Returns the step's output (any JSON value).

    A task's input is what its stage knows: {"input": the run's input, "steps": {STAGE: {"output": ...}}, "review": the last review}.
    """
    data = task.get("input") or {}
    steps = data.get("steps") or {}
    run_input = data.get("input") or {}
    # the post: the draft (as a reviewer may have edited it), else a run's own {"text": ...}
    post = (steps.get("DRAFT") or {}).get("output")
    if post is None and isinstance(run_input, dict):
        post = run_input.get("text")
    if post is None:
        raise TaskFailure("nothing to notify: no steps.DRAFT.output and no input.text", retryable=False)
    log(f"notify (run {task['runId']}, {task['stage']}, attempt {task['attempt']}):", json.dumps(post)[:200])
    published = (steps.get("PUBLISH") or {}).get("output")
    return {"notified": True, "by": worker, "language": "python", "post": post, "published": published, "attempt": task["attempt"]}


class Heartbeat(threading.Thread):
    """Extends the task's lease every leaseMs/3 until stopped; sets `lost` when the server says the task is not ours."""

    def __init__(self, client, task, worker):
        super().__init__(daemon=True)
        self.client, self.task, self.worker = client, task, worker
        self.every = max(0.1, task.get("leaseMs", 30000) / 3000)
        self.done = threading.Event()
        self.lost = threading.Event()

    def run(self):
        while not self.done.wait(self.every):
            try:
                self.client.heartbeat(self.task["id"], self.worker, self.task["attempt"])
            except ApiError as e:
                log(f"heartbeat of task {self.task['id']} failed: {e}")
                if e.status in (404, 409, 410):
                    self.lost.set()
                    return


def report(call, what):
    """Send a finished task's report, retrying network and server errors a few times."""
    delay = 0.25
    for attempt in range(6):
        try:
            return call()
        except ApiError as e:
            if 400 <= e.status < 500 and e.status not in (408, 429):
                log(f"{what}: refused: {e}")
                return None
            log(f"{what}: {e}; retrying in {delay:.2f} s")
            time.sleep(delay)
            delay = min(delay * 2, 10)
    log(f"{what}: gave up; the lease will run out and the task will be offered again")
    return None


def work_one(client, task, worker):
    beat = Heartbeat(client, task, worker)
    beat.start()
    try:
        output = handle(task, worker)
    except Exception as e:  # the handler's failure is the task's, reported to the server
        retryable = getattr(e, "retryable", True) is not False
        beat.done.set()
        log(f"task {task['id']} failed ({'retryable' if retryable else 'not retryable'}): {e}")
        answer = report(lambda: client.fail(task["id"], str(e), retryable, worker, task["attempt"]), f"fail {task['id']}")
        if answer:
            log(f"task {task['id']}: {answer.get('status')}")
        return
    finally:
        beat.done.set()
    answer = report(lambda: client.complete(task["id"], output, worker, task["attempt"]), f"complete {task['id']}")
    if answer:
        log(f"task {task['id']} completed")


def main():
    p = argparse.ArgumentParser(description="A Switchyard external worker (Python, standard library only).")
    p.add_argument("--queue", required=True, help="the queue of the external step, e.g. publisher")
    p.add_argument("--worker", default=f"py-{socket.gethostname()}-{os.getpid()}", help="this worker's name")
    p.add_argument("--wait-ms", type=int, default=20000, help="long-poll of one claim, ms (at most 30000)")
    p.add_argument("--once", action="store_true", help="handle one task, then exit")
    p.add_argument("--timeout", type=float, default=0, help="with --once: give up after this many seconds without a task (exit 3)")
    args = p.parse_args()

    client = Client(os.environ.get("SWITCHYARD_URL", "http://localhost:3000"), os.environ.get("SWITCHYARD_TOKEN") or None)
    stopping = threading.Event()

    def on_signal(signum, _frame):
        if stopping.is_set():
            sys.exit(130)  # a second Ctrl-C: leave now
        stopping.set()
        log("stopping: no new claims (Ctrl-C again to leave at once)")

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    log(f"worker {args.worker} on queue {args.queue} at {client.base_url}")
    started = time.monotonic()
    delay = 0.25
    while not stopping.is_set():
        wait_ms = min(args.wait_ms, 30000)
        if args.once and args.timeout:
            left = args.timeout - (time.monotonic() - started)
            if left <= 0:
                log("no task came in time")
                return 3
            wait_ms = min(wait_ms, int(left * 1000))
        # the long-poll runs in a thread so that Ctrl-C stops the loop at once
        box = {}

        def claim():
            try:
                box["task"] = client.claim(args.queue, args.worker, wait_ms)
            except ApiError as e:
                box["error"] = e

        t = threading.Thread(target=claim, daemon=True)
        t.start()
        while t.is_alive() and not stopping.is_set():
            t.join(0.2)
        if stopping.is_set() and t.is_alive():
            # a task claimed by the abandoned poll is not lost: its lease runs out and it is offered again
            break
        if "error" in box:
            e = box["error"]
            if 400 <= e.status < 500 and e.status not in (408, 429):
                log(f"claim refused: {e}")
                return 2
            log(f"claim failed: {e}; retrying in {delay:.2f} s")
            stopping.wait(delay)
            delay = min(delay * 2, 10)
            continue
        delay = 0.25
        task = box.get("task")
        if not task:
            continue
        work_one(client, task, args.worker)
        if args.once:
            return 0
    log("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
