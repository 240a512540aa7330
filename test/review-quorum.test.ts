// The quorum of a review step (`approvers: N`): an edit resets the approvals given before it (they
// approved another value) and counts as its editor's approval of the new value; the route is
// chosen when the Nth approval is in (on.edit when the value was edited in that round, else
// on.approve). With accounts off, names are compared normalised (NFKC, trimmed, case-folded). An
// edit keeps the type of what it replaces (the shown step's llm schema, else the shown value's
// shape); edit is offered only where `show` gives it a typed place. `reviewer` is required by the
// decision schemas of a quorum review when accounts are off, and a missing one is 422.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { typedReview } from "../lib/api/review-types";
import { reviewView } from "../lib/engine/views";
import type { RunView } from "../lib/engine/views";
import { saveUserWorkflow } from "../lib/flows/store";
import { shapeProblem } from "../lib/steps/edit-shape";
import { checkFlowSource } from "../lib/flows/validate";
import { flowWorkflow } from "../lib/flows/machine";
import type { StateMeta } from "../lib/machines/types";
import type { Runtime } from "../lib/runtime";
import type { ManualClock } from "../lib/engine/clock";
import { flush, inState, testRuntime } from "./helpers";

// edited and approved rounds go different ways, so the route says which one the quorum took
const FLOW = `id: quorum-routes
initial_stage: DRAFT
stages: [DRAFT, REVIEW, SHIP, RECHECK, DONE]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, SHIP, RECHECK], SHIP: [DONE], RECHECK: [DONE], DONE: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a short post about {{input.topic}}." }
    next: REVIEW
  REVIEW:
    review: { prompt: "Ship it?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject, edit], approvers: 3 }
    on: { approve: SHIP, edit: RECHECK, reject: DRAFT }
`;

// the shown step has a schema: an edit must match it
const TYPED = `id: quorum-typed
initial_stage: DRAFT
stages: [DRAFT, REVIEW, DONE]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, DONE], DONE: [] }
steps:
  DRAFT:
    llm:
      prompt: "A release note for {{input.topic}}"
      schema: { type: object, properties: { title: { type: string }, tags: { type: array, items: { type: string } } }, required: [title, tags] }
    next: REVIEW
  REVIEW:
    review: { prompt: "Ship it?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject, edit] }
    on: { approve: DONE, edit: DONE, reject: DRAFT }
`;

// no on.approve / on.edit: the guards read the round's decision once the quorum is in
const GUARDED = `id: quorum-guarded
initial_stage: DRAFT
stages: [DRAFT, REVIEW, SHIP, RECHECK, DONE]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, SHIP, RECHECK], SHIP: [DONE], RECHECK: [DONE], DONE: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a short post about {{input.topic}}." }
    next: REVIEW
  REVIEW:
    review: { prompt: "Ship it?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject, edit], approvers: 2 }
    on: { reject: DRAFT }
    when:
      - { if: "review.decision == 'edit' && review.edited == 'Shorter.'", to: RECHECK }
    next: SHIP
`;

let rt: Runtime & { clock: ManualClock };
type Handler = (req: Request, ctx: { params: Promise<{ id: string }> }) => Promise<Response>;
let decisionRoute: { POST: Handler };

beforeAll(async () => {
  rt = await testRuntime();
  await saveUserWorkflow(rt.db, "yaml", FLOW);
  await saveUserWorkflow(rt.db, "yaml", TYPED);
  await saveUserWorkflow(rt.db, "yaml", GUARDED);
  (globalThis as Record<symbol, unknown>)[Symbol.for("switchyard.runtime")] = Promise.resolve(rt);
  decisionRoute = (await import("../app/api/reviews/[id]/decision/route")) as never;
});
afterAll(async () => {
  await rt?.close();
});

type Ctx = { approvals: Record<string, string[]>; review: Record<string, unknown> | null; steps: Record<string, { output?: unknown; by?: string }> };
const ctxOf = (r: RunView) => r.context as Ctx;

async function pending(runId: string) {
  await flush();
  const [r] = await rt.store.listReviews({ runId, status: "pending" });
  expect(r).toBeDefined();
  return r!;
}

async function start(workflow = "quorum-routes") {
  const { run } = await rt.engine.start(workflow, { topic: "tide tables" });
  return rt.engine.waitFor(run.id, inState("REVIEW"));
}

const decide = async (runId: string, decision: string, reviewer?: string, data?: Record<string, unknown>) => rt.engine.decide((await pending(runId)).id, { decision, ...(reviewer !== undefined ? { reviewer } : {}), ...(data ? { data } : {}) });

describe("a quorum of three", () => {
  it("three approvals take on.approve", async () => {
    const run = await start();
    await decide(run.id, "approve", "ana");
    await decide(run.id, "approve", "ben");
    const done = await decide(run.id, "approve", "cy");
    expect(done.run.state).toEqual(["SHIP"]);
    expect(ctxOf(done.run).review).toMatchObject({ decision: "approve", approvers: ["ana", "ben", "cy"] });
    await rt.engine.abort(run.id);
  });

  it("one edit does not move the run: it resets the approvals before it, counts as the editor's, and the quorum takes on.edit", async () => {
    const run = await start();
    const draft = ctxOf(run).steps.DRAFT!.output;
    await decide(run.id, "approve", "ana");
    await decide(run.id, "approve", "ben");
    const edited = await decide(run.id, "edit", "cy", { edited: "A better post." });
    expect(edited.run.state).toEqual(["REVIEW"]);
    expect(ctxOf(edited.run).approvals.REVIEW).toEqual(["cy"]);
    // the text under review is the edited one; the draft itself changes only once the quorum approves it
    const review = await pending(run.id);
    expect(review.prompt).toBe("Ship it? (1 of 3 approvals, edited by cy)");
    expect(review.payload).toMatchObject({ show: "A better post.", editedBy: "cy", approvals: { so_far: 1, needed: 3, by: ["cy"] } });
    expect(ctxOf(edited.run).steps.DRAFT!.output).toBe(draft);
    // ana approved the old text: she approves again, for the new one
    await decide(run.id, "approve", "ana");
    await expect(decide(run.id, "approve", "cy")).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/cy has already approved REVIEW/) });
    const done = await decide(run.id, "approve", "ben");
    expect(done.run.state).toEqual(["RECHECK"]);
    expect(ctxOf(done.run).review).toMatchObject({ decision: "edit", edited: "A better post.", approvers: ["cy", "ana", "ben"] });
    expect(ctxOf(done.run).steps.DRAFT).toMatchObject({ output: "A better post.", by: "edited by cy" });
    expect(ctxOf(done.run).steps.REVIEW).toMatchObject({ output: "A better post.", by: "edit by cy, approved by ana, ben" });
    await rt.engine.abort(run.id);
  });

  it("a later edit replaces an earlier one, and a reject after an edit decides at once (the draft unchanged)", async () => {
    const run = await start();
    const draft = ctxOf(run).steps.DRAFT!.output;
    await decide(run.id, "edit", "ana", { edited: "First edit." });
    const again = await decide(run.id, "edit", "ben", { edited: "Second edit." });
    expect(ctxOf(again.run).approvals.REVIEW).toEqual(["ben"]);
    expect((await pending(run.id)).payload).toMatchObject({ show: "Second edit.", editedBy: "ben" });
    const rejected = await decide(run.id, "reject", "cy");
    await flush();
    const back = await rt.engine.waitFor(run.id, (r) => r.state.includes("REVIEW") && ctxOf(r).review?.decision === "reject");
    expect(rejected.run.state).not.toContain("RECHECK");
    expect(ctxOf(back).approvals.REVIEW).toEqual([]);
    expect((await pending(run.id)).payload).not.toHaveProperty("editedBy");
    expect(ctxOf(back).steps.DRAFT!.output).not.toBe("Second edit.");
    expect(typeof draft).toBe("string");
    await rt.engine.abort(run.id);
  });

  it("when: guards are read once the quorum is in, with the round's decision (edit) and the edited value", async () => {
    const edited = await start("quorum-guarded");
    expect((await decide(edited.id, "edit", "ana", { edited: "Shorter." })).run.state).toEqual(["REVIEW"]);
    expect((await decide(edited.id, "approve", "ben")).run.state).toEqual(["RECHECK"]);
    const approved = await start("quorum-guarded");
    await decide(approved.id, "approve", "ana");
    expect((await decide(approved.id, "approve", "ben")).run.state).toEqual(["SHIP"]);
    await rt.engine.abort(edited.id);
    await rt.engine.abort(approved.id);
  });

  it("counts names normalised with accounts off (NFKC, trim, case-fold); signed-in names exactly", async () => {
    const run = await start();
    await decide(run.id, "approve", "ana");
    for (const same of ["ANA ", "  Ana", "Ａｎａ", "ａｎａ\u3000"]) {
      await expect(decide(run.id, "approve", same), same).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/has already approved REVIEW/) });
    }
    expect(ctxOf(await rt.engine.getRun(run.id)).approvals.REVIEW).toEqual(["ana"]);
    // a name is recorded as given, trimmed and NFKC-normalised
    const strasse = await decide(run.id, "approve", "  Straße ");
    expect(ctxOf(strasse.run).approvals.REVIEW).toEqual(["ana", "Straße"]);
    await expect(decide(run.id, "approve", "STRASSE")).rejects.toMatchObject({ status: 409 });
    // signed in, "Ana" is another account than "ana"
    const review = await pending(run.id);
    const signed = await rt.engine.decide(review.id, { decision: "approve", reviewer: "Ana" }, { verified: true });
    expect(signed.run.state).toEqual(["SHIP"]);
    await rt.engine.abort(run.id);
  });

  it("a decision without a name is 422 (not 409), through the API too; a blank name is no name", async () => {
    const run = await start();
    await expect(decide(run.id, "approve")).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^reviewer: REVIEW needs 3 distinct approvers/) });
    await expect(decide(run.id, "approve", "   ")).rejects.toMatchObject({ status: 422 });
    await expect(decide(run.id, "edit", undefined, { edited: "x" })).rejects.toMatchObject({ status: 422 });
    const review = await pending(run.id);
    const res = await decisionRoute.POST(new Request(`http://test/api/reviews/${review.id}/decision`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ decision: "approve" }) }), { params: Promise.resolve({ id: review.id }) });
    expect(res.status).toBe(422);
    expect((await res.json()).error).toMatch(/^reviewer: /);
    expect((await rt.store.getReview(review.id))!.status).toBe("pending");
    await rt.engine.abort(run.id);
  });

  it("the decision schemas require reviewer with accounts off; not signed in, not with one approver", async () => {
    const run = await start();
    const review = reviewView(await pending(run.id));
    const off = typedReview(review, run.input, false);
    for (const d of ["approve", "reject", "edit"]) expect((off.decisionSchemas[d] as { required: string[] }).required, d).toContain("reviewer");
    const on = typedReview(review, run.input, true);
    expect((on.decisionSchemas.approve as { required: string[] }).required).not.toContain("reviewer");
    const single = await start("quorum-typed");
    const one = typedReview(reviewView(await pending(single.id)), single.input, false);
    expect((one.decisionSchemas.approve as { required: string[] }).required).not.toContain("reviewer");
    await rt.engine.abort(run.id);
    await rt.engine.abort(single.id);
  });
});

describe("an edit keeps the type of what it replaces", () => {
  it("a string shown: an object or a number is 422 naming the path; the review stays open", async () => {
    const run = await start();
    await expect(decide(run.id, "edit", "ana", { edited: { text: "x" } })).rejects.toMatchObject({ status: 422, message: "edited: expected a string (the value it replaces is a string), got an object" });
    await expect(decide(run.id, "edit", "ana", { edited: 7 })).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^edited: expected a string/) });
    expect((await pending(run.id)).payload).toMatchObject({ approvals: { so_far: 0 } });
    await rt.engine.abort(run.id);
  });

  it("a step with an llm schema: the edit must match it (paths named), and a matching edit goes through", async () => {
    const run = await start("quorum-typed");
    const shown = ctxOf(run).steps.DRAFT!.output as { title: string; tags: string[] };
    expect(shown).toMatchObject({ title: expect.any(String), tags: [] });
    await expect(decide(run.id, "edit", "ana", { edited: { title: 1, tags: [] } })).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^edited\.title: .*DRAFT's llm schema/) });
    await expect(decide(run.id, "edit", "ana", { edited: { title: "t", tags: [3] } })).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/^edited\.tags\.0: /) });
    await expect(decide(run.id, "edit", "ana", { edited: "whatever" })).rejects.toMatchObject({ status: 422 });
    const done = await decide(run.id, "edit", "ana", { edited: { title: "v2", tags: ["release"] } });
    expect(done.run.state).toEqual(["DONE"]);
    expect(ctxOf(done.run).steps.DRAFT!.output).toEqual({ title: "v2", tags: ["release"] });
  });

  it("else the shape of the value shown: types and keys, nested", () => {
    const was = { title: "a", meta: { n: 1, ok: true }, items: [{ id: "x" }] };
    expect(shapeProblem("edited", was, { title: "b", meta: { n: 2, ok: false }, items: [] })).toBeNull();
    expect(shapeProblem("edited", was, { title: "b", meta: { n: "2", ok: false }, items: [] })).toBe("edited.meta.n: expected a number (the value it replaces is a number), got a string");
    expect(shapeProblem("edited", was, { title: "b", meta: { n: 2 }, items: [] })).toBe("edited.meta.ok: missing (the value it replaces has it)");
    expect(shapeProblem("edited", was, { title: "b", meta: { n: 2, ok: true, extra: 1 }, items: [] })).toMatch(/^edited\.meta\.extra: not a key of the value it replaces/);
    expect(shapeProblem("edited", was, { title: "b", meta: { n: 2, ok: true }, items: [{ id: 5 }] })).toMatch(/^edited\.items\[0\]\.id: expected a string/);
    expect(shapeProblem("edited", was, [was])).toMatch(/^edited: expected an object .* got an array/);
    expect(shapeProblem("edited", null, { anything: 1 })).toBeNull();
  });

  it("edit is offered only where show is one {{steps.X.output}} or a literal: refused when saved, dropped from older definitions", async () => {
    const bad = FLOW.replace("quorum-routes", "quorum-bad").replace('show: "{{steps.DRAFT.output}}"', 'show: "Draft: {{steps.DRAFT.output}}"');
    await expect(saveUserWorkflow(rt.db, "yaml", bad)).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/steps\.REVIEW\.review\.show: edit replaces the value the review shows/) });
    const none = FLOW.replace("quorum-routes", "quorum-bad").replace('show: "{{steps.DRAFT.output}}", ', "");
    await expect(saveUserWorkflow(rt.db, "yaml", none)).rejects.toMatchObject({ status: 422, message: expect.stringMatching(/steps\.REVIEW\.review\.decisions: edit replaces/) });
    const literal = FLOW.replace("quorum-routes", "quorum-literal").replace('show: "{{steps.DRAFT.output}}"', 'show: "the release notes"');
    await saveUserWorkflow(rt.db, "yaml", literal);
    // a definition stored before the rule (versions are not checked again when loaded) does not offer edit
    const checked = checkFlowSource("yaml", FLOW);
    if (!checked.ok) throw new Error("FLOW is valid");
    const older = structuredClone(checked.config);
    older.steps!.REVIEW!.review!.show = "Draft: {{steps.DRAFT.output}}";
    const def = flowWorkflow(older, { version: 1 });
    const meta = (def.machine.root.states.REVIEW!.meta as StateMeta).review!;
    expect(meta.decisions).toEqual(["approve", "reject"]);
    expect(def.refuseDecision!("REVIEW", ctxOf(await start()), "edit", { reviewer: "ana", data: { edited: "x" } })).toMatchObject({ status: 422, message: expect.stringMatching(/REVIEW does not offer edit/) });
  });
});
