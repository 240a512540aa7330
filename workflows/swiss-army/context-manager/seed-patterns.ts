// Solution patterns the Context Manager starts with, so a first start has something to find.
// Confidence moves with every approval and rejection from then on.

export interface SeedPattern {
  name: string;
  requestType: "code" | "docs" | "refactor" | "query";
  keywords: string;
  description: string;
}

export const SEED_PATTERNS: SeedPattern[] = [
  {
    name: "Retry with exponential backoff",
    requestType: "code",
    keywords: "retry backoff exponential jitter fetch http request transient timeout 429 503",
    description:
      "Wrap the call in a loop that retries only transient failures (timeouts, 429, 5xx). Wait base * 2^attempt milliseconds plus random jitter between attempts. Honour a Retry-After header when the server sends one. Give up after a fixed number of attempts and surface the last error.",
  },
  {
    name: "Validate input at the boundary",
    requestType: "code",
    keywords: "validate validation input schema zod email form request body parse sanitize",
    description:
      "Parse untrusted input once, at the edge, with a schema library such as zod. Return field-level errors to the caller instead of throwing deep inside the code. Keep the parsed, typed value and never touch the raw input again.",
  },
  {
    name: "Keyset pagination",
    requestType: "code",
    keywords: "paginate pagination cursor offset limit sql postgresql query page keyset",
    description:
      "Paginate with a cursor on an indexed, unique sort key (WHERE id > last_id ORDER BY id LIMIT n) instead of OFFSET. It stays fast on deep pages and does not skip or repeat rows when data changes between requests.",
  },
  {
    name: "Debounce user input",
    requestType: "code",
    keywords: "debounce throttle search input typing react event handler delay",
    description:
      "Delay the expensive call until the user pauses typing for a short interval, such as 300 milliseconds. Cancel the pending timer on every keystroke and on unmount. Use throttle instead when updates must keep flowing at a fixed rate.",
  },
  {
    name: "Table-driven tests",
    requestType: "code",
    keywords: "test tests unit testing cases table vitest jest edge cases coverage",
    description:
      "List the cases as data: input, expected output and a name. Loop over them in one test body so adding a case is one line. Include the edge cases: empty input, boundaries, invalid values and very large input.",
  },
  {
    name: "Extract function",
    requestType: "refactor",
    keywords: "refactor extract function method split long duplicate simplify rename module",
    description:
      "Move a coherent block into a function named for what it does, passing in only what it reads and returning what it produces. Replace duplicates with calls to it. Keep behaviour identical and let the existing tests prove it.",
  },
  {
    name: "Replace conditionals with a lookup table",
    requestType: "refactor",
    keywords: "refactor switch if else conditional map lookup table dispatch strategy",
    description:
      "When a long if/else or switch maps keys to behaviour, replace it with a map from key to handler. New cases become data, and each handler can be tested on its own.",
  },
  {
    name: "README that answers first questions",
    requestType: "docs",
    keywords: "readme documentation docs guide quick start install usage example",
    description:
      "Open with one sentence on what the project does. Follow with a quick start that works when pasted: install, configure, run. Then show the most common task as a complete example, and link to reference material last.",
  },
  {
    name: "Explain with a worked example",
    requestType: "docs",
    keywords: "explain explanation document tutorial example concept how works",
    description:
      "State the idea in one sentence, then walk through one concrete example step by step, showing the input and the result of each step. Finish with the common mistakes and how to spot them.",
  },
  {
    name: "Compare options in a table",
    requestType: "query",
    keywords: "compare comparison difference versus vs options choose tradeoff which better",
    description:
      "Name the criteria that matter for the decision first, then compare each option against them in a table. End with a recommendation for the asker's situation and the case in which the other option wins.",
  },
  {
    name: "Answer with sources",
    requestType: "query",
    keywords: "what why how question answer explain source reference find",
    description:
      "Answer the question directly in the first sentence. Support it with the relevant facts and cite where each comes from. Say what is uncertain or unknown instead of guessing.",
  },
  {
    name: "Structured logging",
    requestType: "code",
    keywords: "logging logs log structured json observability trace error monitoring",
    description:
      "Log events as JSON objects with a stable message and fields (request id, user, duration) rather than formatted strings. Log errors once, where they are handled, with their cause. Never log secrets.",
  },
];
