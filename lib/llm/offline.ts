// The offline engine: a model port that needs no network and no weights. It answers by
// extractive synthesis: it quotes the passages it was given that best cover the request's
// own terms, cites them, and says plainly that no model wrote the answer. Same input, same
// output, every time. A call that brings the step's own algorithm (`offline`) is answered by it.
import { isProse, keyTerms, quotable, sentences, tokens } from "../knowledge/text";
import { z } from "zod";
import { escapeRegExp } from "../regexp";
import { isProseSentence, withoutCode } from "./prose";
import type { GenerateRequest, GenerateResult, ModelPort, ModelRequest, ObjectRequest, ObjectResult, Passage } from "./types";

export const OFFLINE_ADAPTER = "offline engine";

interface Quote {
  passage: Passage;
  index: number;
  sentence: string;
  score: number;
}

const NOTE_CHAT = "_Written by the offline engine: it has no language model to hold a conversation, so it answers with what the stored documents say about your message._";
const NOTE_ANSWER = "_Written by the offline engine: no model endpoint is configured, so this answer is assembled from stored context and quotes its sources._";
/** The answer's headings, each written bold at the start of its line ("**Sources:**"). */
const HEADING = {
  request: "Request",
  question: "Question",
  approach: "Approach, from what worked before",
  planned: "Approach (no stored context matched, so this plan is built from the request's own terms)",
  sourcesSay: "What the sources say",
  sources: "Sources",
  method: "How this was made",
} as const;
const heading = (h: keyof typeof HEADING) => `**${HEADING[h]}:**`;

/** The lines this engine adds around its quotes: its notes, the lines its headings start, its source list. */
const OWN_LINES = new RegExp(
  `${[NOTE_CHAT, NOTE_ANSWER].map(escapeRegExp).join("|")}|^(?:${(Object.keys(HEADING) as (keyof typeof HEADING)[]).map((h) => escapeRegExp(heading(h))).join("|")}).*$|^- \\[\\d+\\] .*$`,
  "gm",
);

/**
 * A passage without the scaffolding of an earlier offline answer (stored results come back as
 * context): quoting "Written by the offline engine…" or a source list would only echo itself.
 */
export function withoutOwnScaffolding(text: string): string {
  // a quoted line's "[n]" cites the earlier answer's sources, not this one's
  return text.replace(OWN_LINES, "").replace(/(?: \[\d+\])+$/gm, "");
}

function bestQuotes(terms: string[], passages: Passage[], max: number): Quote[] {
  const termSet = new Set(terms);
  const quotes: Quote[] = [];
  passages.forEach((passage, index) => {
    let best: Quote | null = null;
    for (const raw of sentences(withoutCode(withoutOwnScaffolding(passage.text)))) {
      const sentence = quotable(raw);
      // findings are prose: never a shell command, a code line or a table row
      if (!sentence || sentence.length < 20 || !isProse(sentence) || !isProseSentence(sentence)) continue;
      const words = new Set(tokens(sentence));
      let overlap = 0;
      for (const t of termSet) if (words.has(t)) overlap++;
      // rank by how much of the request a sentence covers, then by the passage's own rank
      const score = overlap + (passage.score ?? 0) * 0.5 - index * 0.01;
      // a sentence sharing no word with the request is not a finding about it
      if (overlap === 0 && termSet.size > 0) continue;
      if (!best || score > best.score) best = { passage, index, sentence, score };
    }
    if (best) quotes.push(best);
  });
  return quotes.sort((a, b) => b.score - a.score).slice(0, max);
}

function plan(terms: string[]): string[] {
  const subject = terms.slice(0, 4).join(", ") || "the request";
  return [
    `Pin down the inputs, outputs and constraints for ${subject}.`,
    `Build the smallest version that handles ${terms[0] ?? "the main case"}, then extend it to ${terms.slice(1, 3).join(" and ") || "the remaining cases"}.`,
    "Check the result against each requirement in the request and note anything left open.",
  ];
}

const SMALL_TALK = /^(?:hi|hello|hey|hiya|yo|howdy|thanks|thank you|thx|cheers|good (?:morning|afternoon|evening)|how are you|what'?s up|ok|okay|bye)\b[\s!?.,:)]*(?:there|again|all|you|everyone|switchyard)?[\s!?.,:)]*$/i;

/** A greeting or thanks: nothing the stored documents could answer. */
export function isSmallTalk(text: string): boolean {
  const t = text.trim();
  return t.length <= 40 && SMALL_TALK.test(t);
}

/** The offline engine's reply to small talk: what it is, and how to connect a model. */
export const SMALL_TALK_REPLY =
  "Hi! No language model is configured, so I can't hold a conversation: the offline engine only quotes stored documents. " +
  "To connect a model, open Settings, or set OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL (any OpenAI-compatible server, e.g. Ollama) and restart.";

export function synthesize(req: ModelRequest): { text: string; citations: string[] } {
  if (req.purpose === "chat" && isSmallTalk(req.prompt)) return { text: SMALL_TALK_REPLY, citations: [] };
  const terms = keyTerms(req.prompt, 16);
  const passages = req.passages ?? [];
  const quotes = bestQuotes(terms, passages, 5);
  const lines: string[] = [];
  // a task (swiss-army's execute) gets an approach; a question (chat, answer) gets what the sources say
  const task = req.purpose === "execute";
  lines.push(req.purpose === "chat" ? NOTE_CHAT : NOTE_ANSWER);
  lines.push("");
  lines.push(`${heading(task ? "request" : "question")} ${sentences(req.prompt)[0] ?? req.prompt}`);
  lines.push("");
  if (quotes.length) {
    lines.push(heading(task ? "approach" : "sourcesSay"));
    quotes.forEach((q, i) => lines.push(`${i + 1}. ${q.sentence} [${q.index + 1}]`));
  } else if (!task) {
    lines.push("No stored document speaks to this, and without a model the offline engine has nothing more to add. Configure a model endpoint in Settings for a written answer.");
  } else {
    lines.push(heading("planned"));
    plan(terms).forEach((s, i) => lines.push(`${i + 1}. ${s}`));
  }
  const cited = [...new Set(quotes.map((q) => q.index))].sort((a, b) => a - b);
  if (cited.length) {
    lines.push("");
    lines.push(heading("sources"));
    for (const i of cited) {
      const p = passages[i];
      lines.push(`- [${i + 1}] ${p.title}${p.score !== undefined ? ` (search rank score ${p.score.toFixed(2)})` : ""}`);
    }
  }
  lines.push("");
  // say what was done, not how good it is: no model judged whether these quotes answer the request
  lines.push(
    cited.length
      ? `${heading("method")} quoted from ${cited.length === 1 ? "1 passage that shares" : `${cited.length} passages that share`} words with the ${task ? "request" : "question"}; no model read ${cited.length === 1 ? "it" : "them"} or checked that the quotes answer it.`
      : `${heading("method")} ${task ? "a generic outline built from the request's own words" : "nothing was quoted"}; no model was involved.`,
  );
  return { text: lines.join("\n"), citations: cited.map((i) => passages[i].id) };
}

/** The offline engine's work costs no model tokens: usage records say so. */
export const NO_TOKENS = { promptTokens: 0, completionTokens: 0, estimated: false } as const;

export class OfflineModel implements ModelPort {
  readonly name = OFFLINE_ADAPTER;
  readonly offline = true;
  readonly model = "offline";

  /** The step's own deterministic algorithm produces the object; the schema still validates it. */
  async generateObject<T>(req: ObjectRequest<T>): Promise<ObjectResult<T>> {
    const started = performance.now();
    const object = z.parse(req.schema, await req.offline());
    const text = JSON.stringify(object);
    req.onText?.(text);
    return {
      object,
      text,
      adapter: OFFLINE_ADAPTER,
      usage: { ...NO_TOKENS },
      latencyMs: Math.round(performance.now() - started),
      citations: [],
    };
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const started = performance.now();
    if (req.signal?.aborted) throw Object.assign(new Error("aborted"), { name: "AbortError" });
    // the step's own text when it brings one, else the passages quoted
    const own = req.offline ? await req.offline() : synthesize(req);
    const { text, citations = [] } = typeof own === "string" ? { text: own } : own;
    if (req.onText) for (const line of text.split(/(?<=\n)/)) req.onText(line);
    return {
      text,
      adapter: OFFLINE_ADAPTER,
      usage: { ...NO_TOKENS },
      latencyMs: Math.round(performance.now() - started),
      citations,
    };
  }
}
