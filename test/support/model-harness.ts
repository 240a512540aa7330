// A workflow's runs with a model endpoint: a local OpenAI-compatible server (test/support/fake-openai)
// whose model port retries once with a 10 ms backoff (the sleeps it asked for are kept), and the
// model calls a run made, in order. Each workflow's "with a model" test uses it (workflows/<id>/test).
import type { Runtime } from "../../lib/runtime";
import { fakeModel, useFakeOpenAi } from "./fake-openai";

export function modelHarness(rt: () => Runtime | null, reset: () => Promise<void>) {
  const fake = useFakeOpenAi({ afterEach: reset });
  const sleeps: number[] = [];
  const model = (retries = 1) => fakeModel(fake, { OPENAI_MODEL: "schema-1", SWITCHYARD_LLM_BACKOFF_MS: "10", SWITCHYARD_LLM_MAX_RETRIES: String(retries) }, async (ms) => void sleeps.push(ms));
  const calls = async (runId: string) => (await rt()!.db.modelCall.findMany({ where: { runId }, orderBy: { createdAt: "asc" } })).map((c) => ({ state: c.state ?? "", purpose: c.purpose, ok: c.ok, adapter: c.adapter, output: c.output ?? "" }));
  return { fake, sleeps, model, calls };
}
