#!/usr/bin/env python3
"""An external worker for Switchyard in Python, on the client module clients/python/switchyard.py
(standard library only; copy that file next to yours or put its folder on PYTHONPATH).

    SWITCHYARD_URL=http://localhost:3000 python3 examples/python/worker.py --queue publisher
    SWITCHYARD_TOKEN=sy_...   # with accounts on: an API token with the worker role

Options: --queue NAME (required), --worker NAME, --concurrency N, --wait-ms MS, --once (handle one
task, then exit), --timeout S (stop after S seconds; with --once and no task came: exit 3).
Ctrl-C or SIGTERM stops it cleanly: no new claims, the tasks in hand are finished and reported.

The handler below is the post-pipeline's NOTIFY step: it "notifies" by printing the post and
answers {"notified": true, ...}. Replace `handle` with your own work. Raise TaskFailure(msg,
retryable=False) for a failure that retrying cannot fix; any other exception is reported as
retryable (the task is offered again while the step has attempts left).
"""

import argparse
import json
import os
import socket
import sys
import threading
import time

try:
    import switchyard
except ImportError:  # run from the repository: the module is in clients/python
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
    import switchyard

TaskFailure = switchyard.TaskFailure


def log(*parts):
    print(time.strftime("%H:%M:%S"), *parts, flush=True)


def handle(task, worker):
    """The work: the post-pipeline's NOTIFY step. Returns the step's output (any JSON value).

    A task's input is what its stage knows: {"input": the run's input, "steps": {STAGE: {"output": ...}}, "review": the last review}.
    """
    data = task.input or {}
    steps = data.get("steps") or {}
    run_input = data.get("input") or {}
    # the post: the draft (as a reviewer may have edited it), else a run's own {"text": ...}
    post = (steps.get("DRAFT") or {}).get("output")
    if post is None and isinstance(run_input, dict):
        post = run_input.get("text")
    if post is None:
        raise TaskFailure("nothing to notify: no steps.DRAFT.output and no input.text", retryable=False)
    log(f"notify (run {task.run_id}, {task.stage}, attempt {task.attempt}):", json.dumps(post)[:200])
    published = (steps.get("PUBLISH") or {}).get("output")
    return {"notified": True, "by": worker, "language": "python", "post": post, "published": published, "attempt": task.attempt}


def main():
    p = argparse.ArgumentParser(description="A Switchyard external worker (Python, standard library only).")
    p.add_argument("--queue", required=True, help="the queue of the external step, e.g. publisher")
    p.add_argument("--worker", default=f"py-{socket.gethostname()}-{os.getpid()}", help="this worker's name")
    p.add_argument("--concurrency", type=int, default=1, help="tasks worked on at once")
    p.add_argument("--wait-ms", type=int, default=20000, help="long-poll of one claim, ms (at most 30000)")
    p.add_argument("--once", action="store_true", help="handle one task, then exit")
    p.add_argument("--timeout", type=float, default=0, help="stop after this many seconds (with --once and no task came: exit 3)")
    args = p.parse_args()

    client = switchyard.Switchyard()
    stop = threading.Event()
    if args.timeout:
        timer = threading.Timer(args.timeout, stop.set)
        timer.daemon = True
        timer.start()

    def report(task, outcome, detail):
        log(f"task {task.id} {outcome}" + (f": {detail.message}" if detail is not None else ""))

    log(f"worker {args.worker} on queue {args.queue} at {client.base_url}")
    try:
        stats = client.work(
            args.queue,
            lambda task: handle(task, args.worker),
            concurrency=args.concurrency,
            worker=args.worker,
            wait_ms=args.wait_ms,
            max_tasks=1 if args.once else None,
            stop=stop,
            on_report=report,
            log=log,
        )
    except switchyard.SwitchyardError as e:
        log(f"claim refused: {e}")
        return 2
    log("stopped", json.dumps(stats))
    if args.once and stats["claimed"] == 0:
        log("no task came in time")
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
