// REQUEST_RECEIVED's analysis: intent, parameters, type, complexity, and the seed's user
// errors (ambiguous, invalid format, unrealistic) with the corrective suggestions it asks for.
import { classify, type Cue } from "../../../lib/llm/classify";
import { keyTerms, tokens } from "../../../lib/knowledge/text";
import type { Complexity, ParseOutput, RequestType, SwissError } from "../types";

const TYPES: Record<RequestType, Cue[]> = {
  code: ["function", "implement", "code", "script", "class", "api", "endpoint", "bug", "fix", "build", "typescript", "javascript", "python", "sql", "regex", "test", "tests", "compile", "write", { cue: /\b(ts|js|py|go|rust|java)\b/, weight: 1 }],
  docs: ["document", "documentation", "docs", "readme", { cue: "explain", weight: 2 }, "guide", "tutorial", "comment", "comments", "describe", "changelog", "summary", "summarize", { cue: "write up", weight: 2 }],
  refactor: [{ cue: "refactor", weight: 3 }, "restructure", "clean", "cleanup", "simplify", "rename", "extract", "split", "modularize", "deduplicate", "reorganize", { cue: "clean up", weight: 2 }],
  query: ["what", "why", "how", "which", "when", "where", "who", "find", "search", "list", "compare", "difference", "question", "does", "is"],
};

const UNREALISTIC: { re: RegExp; alternative: string }[] = [
  { re: /\b(entire|whole|complete) (operating system|os|internet|browser|search engine|social network)\b/, alternative: "Start with one component of it, e.g. a single module with a clear interface." },
  { re: /\b(in|within) (one|1|a) (second|minute)\b.*\b(build|write|create|implement)\b|\b(build|write|create|implement)\b.*\b(in|within) (one|1|a) (second|minute)\b/, alternative: "Ask for a first working version, then iterate." },
  { re: /\b100% (accurate|accuracy|guarantee[d]?|bug[- ]free|secure)\b|\bnever (fail|fails|crash|crashes)\b/, alternative: "State a measurable target instead, e.g. 'handles these five edge cases' or 'retries transient errors 3 times'." },
  { re: /\b(every|all) (programming )?languages\b/, alternative: "Pick the one or two languages that matter most." },
];

const LANGUAGES = ["typescript", "javascript", "python", "go", "rust", "java", "sql", "bash", "css", "html", "react", "node"];

function complexityOf(text: string, words: number): Complexity {
  const lists = (text.match(/\band\b|[;•\n]|^\s*[-*\d]+[.)]?\s/gim) ?? []).length;
  if (words > 60 || lists >= 4 || /\b(architecture|distributed|migrate|migration|end[- ]to[- ]end|multi[- ]tenant|scal(e|ing|able))\b/i.test(text)) return "complex";
  if (words < 15 && lists <= 1) return "simple";
  return "medium";
}

const DURATION: Record<Complexity, number> = { simple: 5_000, medium: 15_000, complex: 30_000 };

export function analyzeRequest(content: string, requestId: string, timestampMs: number): ParseOutput {
  const text = content.trim();
  const words = tokens(text);
  const terms = keyTerms(text, 20);
  const kind = classify(text, TYPES, "query");
  const lower = text.toLowerCase();
  const parameters: Record<string, string> = {};
  const language = LANGUAGES.find((l) => words.includes(l));
  if (language) parameters.language = language;
  const file = text.match(/[\w./-]+\.(ts|tsx|js|py|md|json|sql|go|rs|java|css|html|yaml|yml)\b/);
  if (file) parameters.file = file[0];
  const limit = text.match(/\b(\d+)\s*(ms|s|seconds?|minutes?|retries|times|items|lines|words)\b/i);
  if (limit) parameters.limit = `${limit[1]} ${limit[2]}`;
  const complexity = complexityOf(text, words.length);
  const record: ParseOutput["record"] = {
    type: "request",
    request_id: requestId,
    content: text,
    metadata: {
      estimated_complexity: complexity,
      request_type: kind.label,
      timestamp: new Date(timestampMs).toISOString(),
      intent: terms.slice(0, 3).join(" ") || "(none)",
      parameters,
      estimated_duration_ms: DURATION[complexity],
    },
  };

  const userError = (message: string, suggestions: string[]): ParseOutput => ({
    valid: false,
    record,
    error: { category: "user", state: "REQUEST_RECEIVED", message, suggestions } satisfies SwissError,
  });

  if (!/[a-z]/i.test(text) || words.length === 0) {
    return userError("Invalid request format: the request has no words to act on.", [
      'Describe the task in a sentence, e.g. "Write a TypeScript function that validates an email address".',
      'Or ask a question, e.g. "How do I paginate a PostgreSQL query?"',
    ]);
  }
  for (const u of UNREALISTIC) {
    if (u.re.test(lower)) {
      return userError("This request sets an expectation no single run can meet.", [u.alternative, "Split it into smaller requests and send them one at a time."]);
    }
  }
  if (terms.length < 2 || (words.length < 4 && kind.confidence < 0.5)) {
    return userError("The request is ambiguous: it does not say enough about what to do.", [
      `What should be produced, and about what? You wrote "${text.slice(0, 80)}".`,
      "Name the input, the expected output and any constraint (language, size, format).",
      'Example: "Refactor src/auth.ts to split token parsing into its own function".',
    ]);
  }
  return { valid: true, record };
}
