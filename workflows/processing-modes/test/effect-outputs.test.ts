// processing-modes's own effects' outputs pass its output schemas: a worker outside Switchyard answering as
// it does is accepted when SWITCHYARD_EXTERNAL_EFFECTS sends one of its effects to a queue.
import { describe, it } from "vitest";
import { ownOutputsPass } from "../../../test/support/task-worker";

describe("processing-modes's effect outputs", () => {
  it("pass its schemas, on runs that reach every effect", async () => {
    await ownOutputsPass("processing-modes", [
      { query: "hello there" },
      { query: "What does the guide say about timers?", mode: "KNOWLEDGE" },
      { query: "latest news on durable timers", mode: "SEARCH" },
      { query: "Run this:\n```js\n[1, 2, 3].map((x) => x * x)\n```", mode: "CODE" },
      { query: "think hard about queues", mode: "THINKING" },
      { query: "research durable workflow engines", mode: "DEEP_RESEARCH" },
    ]);
  }, 60_000);
});
