"""test/client-python.test.ts: one task at a time; the handler holds each task until a line comes on stdin.

It prints "started <run id>" when a handler starts and, at its end, one JSON line with work()'s counts.
"""
import json
import sys

import switchyard


def handle(task):
    print("started", task.run_id, flush=True)
    sys.stdin.readline()
    print("lost" if task.lost.is_set() else "kept", task.run_id, "stopping" if task.stopping.is_set() else "", flush=True)
    return {"held": task.run_id, "attempt": task.attempt}


stats = switchyard.work(sys.argv[1], handle, concurrency=1, worker="py-hold", wait_ms=1000)
print(json.dumps({"stats": stats}), flush=True)
