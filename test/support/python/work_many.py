"""test/client-python.test.ts: switchyard.work(queue, handler, concurrency=4) until SIGTERM.

The first four handlers wait for each other (four slots must work side by side). At its end it
prints one JSON line: the counts work() returned, the most tasks in hand at once, and the ids handled.
"""
import json
import sys
import threading

import switchyard

lock = threading.Lock()
state = {"in_hand": 0, "most": 0, "handled": []}
four = threading.Barrier(4, timeout=60)


def handle(task):
    with lock:
        state["in_hand"] += 1
        state["most"] = max(state["most"], state["in_hand"])
        state["handled"].append(task.id)
        first_four = len(state["handled"]) <= 4
    if first_four:
        four.wait()
    with lock:
        state["in_hand"] -= 1
    return {"echoed": task.input["input"]["text"], "attempt": task.attempt}


print("ready", flush=True)
stats = switchyard.work(sys.argv[1], handle, concurrency=4, worker="py-many", wait_ms=1000, log=lambda *a: None)
print(json.dumps({"stats": stats, "most": state["most"], "handled": state["handled"]}), flush=True)
