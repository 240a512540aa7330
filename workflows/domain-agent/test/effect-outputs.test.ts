// domain-agent's own effects' outputs pass its output schemas: a worker outside Switchyard answering as
// it does is accepted when SWITCHYARD_EXTERNAL_EFFECTS sends one of its effects to a queue.
import { describe, it } from "vitest";
import { ownOutputsPass } from "../../../test/support/task-worker";

describe("domain-agent's effect outputs", () => {
  it("pass its schemas, on runs that reach every effect", async () => {
    await ownOutputsPass("domain-agent", [{ text: "slept 4 h, resting HR 66\nwhy is my sleep worse this week?", today: "2026-11-20" }, { text: "ran 10 km in 52 min, HR avg 150", today: "2026-11-20" }, { text: "how much protein should I eat?", today: "2026-11-20" }]);
  }, 60_000);
});
