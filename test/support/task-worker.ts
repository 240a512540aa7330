// An external worker over the task routes (POST /api/tasks/claim, POST /api/tasks/{id}/complete)
// for the tests of effects sent to a queue by SWITCHYARD_EXTERNAL_EFFECTS: it answers each task it
// claims with `answer` until stopped. The routes answer from the runtime the test serves them.
import { expect } from "vitest";
import { z } from "zod";
import { builtInOutputs, findWorkflow } from "../../lib/machines/registry";
import { workflowRuntime, type RuntimeOverrides } from "../helpers";

export type Claimed<I = unknown> = { id: string; runId: string; stage: string; input: I; attempt: number; leaseToken: string };

export function taskWorker<I = unknown>(answer: (t: Claimed<I>) => unknown, queue: string) {
  let stop = false;
  const seen: Claimed<I>[] = [];
  const done = (async () => {
    const claim = (await import("../../app/api/tasks/claim/route")) as { POST: (r: Request) => Promise<Response> };
    const complete = (await import("../../app/api/tasks/[id]/complete/route")) as { POST: (r: Request, c: unknown) => Promise<Response> };
    while (!stop) {
      const res = await claim.POST(new Request("http://localhost:3000/api/tasks/claim", { method: "POST", headers: { host: "localhost:3000", "content-type": "application/json" }, body: JSON.stringify({ queue, worker: "team-agent", waitMs: 200 }) }));
      if (res.status === 204) continue;
      const t = (await res.json()) as Claimed<I>;
      seen.push(t);
      const out = await complete.POST(new Request(`http://localhost:3000/api/tasks/${t.id}/complete`, { method: "POST", headers: { host: "localhost:3000", "content-type": "application/json" }, body: JSON.stringify({ output: answer(t), leaseToken: t.leaseToken, worker: "team-agent", attempt: t.attempt }) }), { params: Promise.resolve({ id: t.id }) });
      expect(out.status).toBe(200);
    }
  })();
  return { seen, stop: async () => ((stop = true), await done) };
}

type Node = { invoke?: { id: string; src: unknown }[]; states?: Record<string, Node> };

/**
 * The effect outputs a workflow's runs produced (each `xstate.done.actor.<id>` payload, by the
 * effect its invoke names) checked against the workflow's output schemas: what does not pass, and
 * the effects seen. A worker answering as the built-in does is then accepted.
 */
export function effectOutputs(machine: unknown, schemas: Record<string, z.core.$ZodType>, wf: string) {
  const srcs = new Map<string, string>();
  const walk = (n: Node) => {
    for (const i of n.invoke ?? []) srcs.set(i.id, String(i.src));
    for (const c of Object.values(n.states ?? {})) walk(c);
  };
  walk((machine as { root: Node }).root);
  const seen = new Set<string>();
  const bad: string[] = [];
  return {
    seen,
    bad,
    check(transitions: { event: string; payload: unknown }[]) {
      for (const t of transitions) {
        const m = /^xstate\.done\.actor\.(.+)$/.exec(t.event);
        if (!m) continue;
        const effect = srcs.get(m[1]!) ?? m[1]!;
        seen.add(effect);
        const schema = schemas[effect];
        const parsed = schema ? z.safeParse(schema, (t.payload as { output?: unknown }).output) : undefined;
        if (!parsed?.success) bad.push(`${wf}.${effect}: ${parsed ? parsed.error!.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ") : "no schema"}`);
      }
    },
  };
}

/** Workflow `wf`'s runs on these inputs (each run until it settles) produce effect outputs its output schemas accept, and reach every effect. */
export async function ownOutputsPass(wf: string, inputs: unknown[], opts: RuntimeOverrides = {}): Promise<void> {
  const check = effectOutputs(findWorkflow(wf)!.machine, builtInOutputs()[wf]!, wf);
  const r = await workflowRuntime(wf, opts);
  try {
    for (const input of inputs) {
      const { run } = await r.engine.start(wf, input);
      await r.engine.waitFor(run.id, (x) => x.status !== "running", 20_000);
      check.check(await r.store.transitions(run.id));
    }
  } finally {
    await r.close();
  }
  expect(check.bad).toEqual([]);
  expect([...check.seen].sort(), wf).toEqual(Object.keys(builtInOutputs()[wf]!).sort());
}
