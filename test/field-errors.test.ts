// Refusal issues split for a form: each field's first message, the rest together.
import { describe, expect, it } from "vitest";
import { issuesByField } from "../lib/field-errors";

describe("issuesByField", () => {
  it("takes each field's first message by its path's first segment and keeps the rest", () => {
    const fieldOf = (h: string) => (["url", "events"].includes(h) ? (h as "url" | "events") : null);
    const out = issuesByField(
      [
        { path: "url", message: "url must be https" },
        { path: "url", message: "second url message" },
        { path: "events.0", message: "unknown hook" },
        { path: ["workflow"], message: "unknown workflow" },
        { path: [], message: "body is empty" },
      ],
      fieldOf,
    );
    expect(out).toEqual({ fields: { url: "url must be https", events: "unknown hook" }, other: ["unknown workflow", "body is empty"] });
  });

  it("reads zod's array paths too", () => {
    expect(issuesByField([{ path: ["windowMs", 0], message: "too short" }], (h) => (h === "windowMs" ? "windowMinutes" : null))).toEqual({ fields: { windowMinutes: "too short" }, other: [] });
  });
});
