"""test/client-python.test.ts: runs and reviews through the module. Prints one JSON line of what it saw."""
import json
import sys

import switchyard

sy = switchyard.Switchyard(sys.argv[1])
run = sy.start_run("py-review", {"text": "v1.2"}, idempotency_key="py-start-1")
again = sy.start_run("py-review", {"text": "v1.2"}, idempotency_key="py-start-1")
waiting = sy.wait_for_run(run["id"], until=lambda r: r["status"] == "waiting", timeout=20)
[review] = sy.list_reviews(run_id=run["id"], status="pending")
first = sy.decide(review["id"], "approve", reviewer="ana")
[second] = sy.list_reviews(run_id=run["id"], status="pending")
try:
    sy.decide(second["id"], "approve", reviewer="ana")
    twice = None
except switchyard.SwitchyardError as e:
    twice = {"status": e.status, "code": e.code, "message": e.message}
try:
    sy.decide(second["id"], "edit", reviewer="ben", modifications=["x" * 3000], data={"edited": "v1.3"})
    invalid = None
except switchyard.SwitchyardError as e:
    invalid = {"status": e.status, "path": e.issues[0]["path"]}
edit = sy.decide(second["id"], "edit", reviewer="ben", data={"edited": "v1.3"})
[third] = sy.list_reviews(run_id=run["id"], status="pending")
edited = sy.decide(third["id"], "approve", reviewer="ana")
done = sy.get_run(run["id"])
try:
    sy.get_run("no-such-run")
    missing = None
except switchyard.SwitchyardError as e:
    missing = {"status": e.status, "message": e.message}
try:
    switchyard.Switchyard("http://127.0.0.1:9").get_run("x")
    down = None
except switchyard.SwitchyardError as e:
    down = {"status": e.status, "code": e.code}
listed = sy.list_runs(workflow="py-review")
print(json.dumps({
    "run": run, "same": again["id"] == run["id"], "waiting": waiting["state"], "review": review,
    "first": first["review"], "approvals": second["approvals"], "twice": twice, "invalid": invalid,
    "after_edit": edit["run"]["state"], "third": third["approvals"], "edited": edited["run"]["status"], "done": done, "missing": missing, "down": down, "total": listed["total"],
}))
