// A model port for tests that need a model's work (usage rows are model work only: an offline run
// records none): deterministic words, tokens counted as words.
import type { GenerateRequest, GenerateResult, ModelPort, ObjectRequest, ObjectResult } from "../../lib/llm/types";

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/**
 * A model that writes `write(prompt)` and reports tokens as words (prompt words in, reply words
 * out): deterministic, so token counts and shown values can be counted by hand.
 */
export class WordModel implements ModelPort {
  readonly name = "word-model @ test";
  readonly offline = false;
  constructor(private write: (prompt: string) => string = (p) => `Post: ${p}`) {}
  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const text = this.write(req.prompt);
    return { text, adapter: this.name, usage: { promptTokens: words(req.prompt), completionTokens: words(text), estimated: false }, latencyMs: 1, citations: [], attempts: 1 };
  }
  async generateObject<T>(req: ObjectRequest<T>): Promise<ObjectResult<T>> {
    const object = await req.offline();
    const text = JSON.stringify(object);
    return { object, text, adapter: this.name, usage: { promptTokens: words(req.prompt), completionTokens: words(text), estimated: false }, latencyMs: 1, citations: [], attempts: 1 };
  }
}
