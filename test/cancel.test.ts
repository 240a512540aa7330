import { describe, expect, it } from "vitest";
import { Cancel } from "../lib/engine/cancel";

describe("Cancel (an effect's cancellation)", () => {
  it("runs its own callback first, then the signal's listeners, once", () => {
    const order: string[] = [];
    const c = new Cancel(() => order.push("engine"));
    c.signal.addEventListener("abort", () => order.push("effect"));
    expect(c.signal.aborted).toBe(false);
    c.abort();
    c.abort();
    expect(order).toEqual(["engine", "effect"]);
    expect(c.aborted).toBe(true);
    expect(c.signal.aborted).toBe(true);
  });

  it("an effect that asks for its signal after the cancellation gets an aborted one", () => {
    let called = 0;
    const c = new Cancel(() => called++);
    c.abort();
    expect(called).toBe(1);
    expect(c.signal.aborted).toBe(true);
    expect(c.signal).toBe(c.signal);
  });
});
