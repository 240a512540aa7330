// swiss-army's CONTEXT_SEARCH reads the knowledge store: passages of imported documents come back
// as "document" hits next to the Context Manager's patterns, and EXECUTING cites them.
import { afterEach, describe, expect, it } from "vitest";
import type { SwissContext } from "../types";
import { inState, workflowRuntime } from "../../../test/helpers";

let rt: Awaited<ReturnType<typeof workflowRuntime>> | null = null;
afterEach(async () => {
  await rt?.close();
  rt = null;
});

describe("swiss-army CONTEXT_SEARCH over the knowledge store", () => {
  it("finds passages of the shipped guide and of a document imported by the user", async () => {
    rt = await workflowRuntime("swiss-army");
    const store = await rt.knowledgeReady();
    expect((await store.stats()).documents).toBeGreaterThan(5); // the guide was seeded on first use
    await store.importDocument({ source: "notes/quokka.md", title: "Quokka deployment notes", content: "# Quokka\n\nThe quokka cluster deploys with zebrafish rollouts: each zebrafish rollout drains one quokka node at a time and waits 90 seconds.\n" });

    const { run } = await rt.engine.start("swiss-army", { request: "Summarize how quokka zebrafish rollouts drain nodes" });
    const r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    const c = r.context as SwissContext;
    const docs = c.hits.filter((h) => h.kind === "document");
    expect(docs[0]).toMatchObject({ kind: "document", source: "notes/quokka.md" });
    expect(docs[0]!.title).toContain("Quokka deployment notes");
    expect(docs[0]!.snippet).toContain("zebrafish rollout");
    expect(c.records.context_search).toMatchObject({ status: "found" });
    expect(c.records.context_search!.queries.length).toBeGreaterThanOrEqual(2);
    expect(c.records.context_search!.results_count).toBe(c.hits.length);
    // the offline engine quotes the passage it used and cites it
    expect(c.output).toContain("90 seconds");
  });

  it("uses the guide for a question about the product itself", async () => {
    rt = await workflowRuntime("swiss-army");
    const { run } = await rt.engine.start("swiss-army", { request: "Explain how Switchyard resumes unfinished runs after a restart" });
    const r = await rt.engine.waitFor(run.id, inState("HUMAN_REVIEW"));
    const docs = (r.context as SwissContext).hits.filter((h) => h.kind === "document");
    expect(docs.length).toBeGreaterThan(0);
    expect(docs.every((d) => /^(docs\/guide\/|workflows\/[^/]+\/guide\.md$)/.test(d.source ?? ""))).toBe(true);
  });
});
