// Save-time warnings, not errors: a composite that can never finish on its own, an
// on_error target that is neither final nor a step, a review due no sooner than its step times out,
// a secret not set in this server's environment.
// Each is kept (the definition saves) and said with its line.
import { describe, expect, it } from "vitest";
import { checkFlowSource } from "../lib/flows/validate";

const warnings = (format: "yaml" | "mermaid", src: string, env?: Record<string, string>) => {
  const r = checkFlowSource(format, src, { id: "warned", ...(env ? { env } : {}) });
  if (!r.ok) throw new Error(r.issues.map((i) => `${i.line}: ${i.message}`).join("; "));
  return r.warnings.map((w) => `${w.line}: ${w.message}`);
};

const COMPOSITE = `id: nested
stages: [WORK, DRAFT, CHECK, DONE]
initial_stage: WORK
parents: { DRAFT: WORK, CHECK: WORK }
transitions: { WORK: [DONE], DRAFT: [CHECK], CHECK: [], DONE: [] }
steps:
  DRAFT:
    llm: { prompt: "draft it" }
    next: CHECK
`;

describe("save-time warnings", () => {
  it("a composite whose last stage does not end it waits for a TRANSITION: warned; with an end, not", () => {
    expect(warnings("yaml", COMPOSITE)).toEqual([
      '2: composite WORK never finishes on its own: none of its stages ends it, so a run there waits for a TRANSITION out of WORK. End it with "CHECK --> [*]" inside it (YAML: ends: [CHECK])',
    ]);
    expect(warnings("yaml", COMPOSITE.replace("transitions:", "ends: [CHECK]\ntransitions:"))).toEqual([]);
  });

  it("the same in Mermaid (steps in the front matter), and per region of a parallel composite", () => {
    const mmd = `---
switchyard:
  steps:
    A1: { code: { source: "1" }, next: A2 }
---
stateDiagram-v2
    [*] --> BOTH
    state BOTH {
        [*] --> A1
        A1 --> A2
        A2 --> [*]
        --
        [*] --> B1
    }
    BOTH --> DONE
    DONE --> [*]
`;
    expect(warnings("mermaid", mmd)).toEqual([
      '7: region 2 of composite BOTH (B1) never finishes on its own: none of its stages ends it, so a run there waits for a TRANSITION out of BOTH. End it with "B1 --> [*]" inside it (YAML: ends: [B1])',
    ]);
    expect(warnings("mermaid", mmd.replace("[*] --> B1", "[*] --> B1\n        B1 --> [*]"))).toEqual([]);
  });

  it("on_error to a stage that is neither final nor a step", () => {
    const src = `id: fails
stages: [CALL, OOPS, DONE]
initial_stage: CALL
transitions: { CALL: [DONE, OOPS], OOPS: [CALL], DONE: [] }
steps:
  CALL:
    http: { url: "https://example.com/hook" }
    next: DONE
    on_error: OOPS
`;
    expect(warnings("yaml", src)).toEqual(["9: steps.CALL.on_error: OOPS is neither a final stage nor a stage with a step: after a failure the run waits in OOPS for a TRANSITION. Make OOPS final (no transitions out) or give it a step"]);
    expect(warnings("yaml", src.replace("OOPS: [CALL]", "OOPS: []"))).toEqual([]);
    expect(warnings("yaml", src + "  OOPS:\n    wait: { after_s: 60 }\n    next: CALL\n")).toEqual([]);
  });

  it("a secret not set in this server's environment", () => {
    const src = `id: secretive
stages: [CALL, DONE]
initial_stage: CALL
transitions: { CALL: [DONE], DONE: [] }
steps:
  CALL:
    http: { url: "https://example.com/hook", headers: { Authorization: "Bearer {{secrets.HOOK_TOKEN}}" } }
    next: DONE
`;
    expect(warnings("yaml", src, {})).toEqual(["7: steps.CALL.http.headers.Authorization: secret HOOK_TOKEN is not set in this server's environment (SWITCHYARD_SECRET_HOOK_TOKEN): the call fails until it is"]);
    expect(warnings("yaml", src, { SWITCHYARD_SECRET_HOOK_TOKEN: "x" })).toEqual([]);
    // where there is no server environment (the editor in the browser), nothing is said
    expect(warnings("yaml", src)).toEqual([]);
  });

  it("a review whose due is not before its timeout: the run moves on first, so it is never escalated", () => {
    const src = (due: number) => `id: late-escalation
stages: [SIGN, DONE, EXPIRED]
initial_stage: SIGN
transitions: { SIGN: [DONE, EXPIRED], DONE: [], EXPIRED: [] }
steps:
  SIGN:
    review:
      prompt: "Sign the contract"
      assign: [legal]
      due: { after_s: ${due}, escalate: [legal-leads] }
    next: DONE
    timeout: { after_s: 3600, to: EXPIRED }
`;
    const said = "10: steps.SIGN.review.due: after_s %d is not before timeout.after_s 3600: the run moves on to EXPIRED when the timeout ends, before the review is due, so it is never escalated. Make due.after_s less than 3600";
    expect(warnings("yaml", src(3600))).toEqual([said.replace("%d", "3600")]);
    expect(warnings("yaml", src(86_400))).toEqual([said.replace("%d", "86400")]);
    expect(warnings("yaml", src(3599))).toEqual([]);
    // a due with no timeout, a timeout with no due: nothing to say
    expect(warnings("yaml", src(86_400).replace("    timeout: { after_s: 3600, to: EXPIRED }\n", ""))).toEqual([]);
    expect(warnings("yaml", src(86_400).replace("      due: { after_s: 86400, escalate: [legal-leads] }\n", ""))).toEqual([]);
    // Mermaid: the step in the front matter, the line where its due is written
    const mmd = `---
switchyard:
  steps:
    SIGN:
      review: { prompt: "Sign", due: { after_s: 7200, escalate: [leads] } }
      next: DONE
      timeout: { after_s: 600, to: EXPIRED }
---
stateDiagram-v2
    [*] --> SIGN
    SIGN --> DONE
    SIGN --> EXPIRED
    DONE --> [*]
    EXPIRED --> [*]
`;
    expect(warnings("mermaid", mmd)).toEqual([
      "5: steps.SIGN.review.due: after_s 7200 is not before timeout.after_s 600: the run moves on to EXPIRED when the timeout ends, before the review is due, so it is never escalated. Make due.after_s less than 600",
    ]);
  });
});
