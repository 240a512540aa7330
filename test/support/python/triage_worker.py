"""e2e/team-scenario.spec.ts: the support-triage team's drafting worker, on clients/python/switchyard.py.

switchyard.work("triage-drafts", draft, concurrency=4) against SWITCHYARD_URL until SIGTERM. It
outlives a SIGKILLed server (its claims and reports are retried until the server is back). The first
four drafts wait for each other (four slots must work side by side). Each draft prints one JSON line
{"drafted": run id, "ticket", "attempt"}; at the end one line with work()'s counts and the most
tasks in hand at once.
"""
import json
import sys
import threading

import switchyard

lock = threading.Lock()
state = {"in_hand": 0, "most": 0, "count": 0}
four = threading.Barrier(4, timeout=60)


def draft(task):
    with lock:
        state["in_hand"] += 1
        state["most"] = max(state["most"], state["in_hand"])
        state["count"] += 1
        first_four = state["count"] <= 4
    try:
        if first_four:
            four.wait()
        data = task.input or {}
        ticket = data.get("input") or {}
        steps = data.get("steps") or {}
        mood = ((steps.get("SENTIMENT") or {}).get("output") or {}).get("mood", "calm")
        plan = ((steps.get("LOOKUP") or {}).get("output") or {}).get("plan", "?")
        opening = "We are sorry for the trouble." if mood != "calm" else "Thanks for writing to us."
        reply = f"Hello {ticket.get('customer')}. {opening} About \"{ticket.get('subject')}\": we are on it ({plan} plan, ticket {ticket.get('ticket_id')})."
        line = json.dumps({"drafted": task.run_id, "ticket": ticket.get("ticket_id"), "attempt": task.attempt}) + "\n"
        with lock:  # one write per line: threads' prints would interleave
            sys.stdout.write(line)
            sys.stdout.flush()
        return reply
    finally:
        with lock:
            state["in_hand"] -= 1


print("ready", flush=True)
stats = switchyard.work("triage-drafts", draft, concurrency=4, worker="py-drafts", wait_ms=2000, log=lambda *a: None)
print(json.dumps({"stats": stats, "most": state["most"]}), flush=True)
