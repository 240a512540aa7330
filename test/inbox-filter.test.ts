import { describe, expect, it } from "vitest";
import { applyFilter, filterQuery, parseFilter, type Filterable } from "@/components/review/inbox-filter";

const r = (o: Partial<Filterable> & { name: string; createdAt: string }): Filterable => ({ workflow: "loop", kind: "code_review", state: "REVIEW", prompt: "Review this", workflowTitle: "Loop", ...o });

describe("inbox filter", () => {
  it("reads the URL's filters, dropping bad values one by one", () => {
    expect(parseFilter({ workflow: "nest", kind: "plan", sort: "due", overdue: "true", q: " cost " })).toEqual({ workflow: "nest", kind: "plan", sort: "due", overdue: true, q: "cost" });
    expect(parseFilter({ sort: "size", overdue: "yes", workflow: "", kind: ["a", "b"] })).toEqual({ sort: "age", kind: "a" });
    expect(parseFilter(new URLSearchParams("assigned=legal&overdue=false"))).toEqual({ sort: "age", assigned: "legal" });
  });

  it("writes the query back without defaults", () => {
    expect(filterQuery({ sort: "age" })).toBe("");
    expect(filterQuery({ sort: "due", workflow: "w", q: "a b" })).toBe("?workflow=w&q=a+b&sort=due");
    expect(parseFilter(new URLSearchParams(filterQuery({ sort: "due", kind: "plan", overdue: true }).slice(1)))).toEqual({ sort: "due", kind: "plan", overdue: true });
  });

  it("filters by workflow, kind, overdue, assignment and words", () => {
    const items = [
      r({ name: "one", createdAt: "2026-01-01T00:00:03Z", assignedTo: ["legal"], overdue: true }),
      r({ name: "two", createdAt: "2026-01-01T00:00:01Z", workflow: "nest", kind: "plan", workflowTitle: "Nest of deep plans" }),
      r({ name: "three cost report", createdAt: "2026-01-01T00:00:02Z", assignedTo: ["finance"] }),
    ];
    const names = (f: Parameters<typeof applyFilter>[1], me?: string[]) => applyFilter(items, f, me).map((i) => i.name);
    expect(names({ sort: "age" })).toEqual(["two", "three cost report", "one"]);
    expect(names({ sort: "age", workflow: "nest" })).toEqual(["two"]);
    expect(names({ sort: "age", kind: "code_review" })).toEqual(["three cost report", "one"]);
    expect(names({ sort: "age", overdue: true })).toEqual(["one"]);
    expect(names({ sort: "age", assigned: "LEGAL" })).toEqual(["one"]);
    expect(names({ sort: "age", assigned: "me" }, ["finance"])).toEqual(["two", "three cost report"]);
    expect(names({ sort: "age", q: "COST three" })).toEqual(["three cost report"]);
    expect(names({ sort: "age", q: "deep" })).toEqual(["two"]);
  });

  it("sorts by due date, undated last and oldest first", () => {
    const items = [
      r({ name: "late", createdAt: "2026-01-01T00:00:01Z", dueAt: "2026-01-03T00:00:00Z" }),
      r({ name: "none-new", createdAt: "2026-01-01T00:00:09Z" }),
      r({ name: "soon", createdAt: "2026-01-01T00:00:05Z", dueAt: "2026-01-02T00:00:00Z" }),
      r({ name: "none-old", createdAt: "2026-01-01T00:00:00Z", dueAt: null }),
    ];
    expect(applyFilter(items, { sort: "due" }).map((i) => i.name)).toEqual(["soon", "late", "none-old", "none-new"]);
    expect(applyFilter(items, { sort: "age" }).map((i) => i.name)).toEqual(["none-old", "late", "soon", "none-new"]);
  });
});

import { decidedText } from "@/components/review/due";

describe("a review decided elsewhere, in words", () => {
  it("who decided", () => {
    expect(decidedText({ status: "decided", decision: "reject", reviewer: "ben" })).toBe("Rejected by ben");
    expect(decidedText({ status: "decided", decision: "needs_legal", reviewer: null })).toBe("Needs legal elsewhere");
    expect(decidedText({ status: "cancelled" })).toBe("Closed: the run moved on");
  });
});
