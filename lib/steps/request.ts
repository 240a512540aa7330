// What a step sent, as the run keeps it (context.steps.<STAGE>.request) and the run page shows it:
// the resolved http request (method, URL, headers, body, Idempotency-Key), the code a code step
// ran, the task input an external worker got, the prompt of an llm step. Built from the effect's
// input before any secret is filled in: a header whose definition names a secret is "[secret]",
// so the record never holds a secret's value.

export const SECRET_SHOWN = "[secret]";

export type StepRequest =
  | { kind: "http"; method: string; url: string; headers: Record<string, string>; body?: unknown; idempotencyKey: string }
  | { kind: "code"; language: string; source: string }
  | { kind: "external"; queue: string; input: unknown }
  | { kind: "llm"; prompt: string; system?: string; schema?: Record<string, unknown> };

/** why a step ran again under the same invocation: the process restarted, or a worker's lease ran out */
export type RanAgain = "restart" | "lease";

/** a header template that names a secret ({{secrets.NAME}}, as the definition writes it) */
export const namesSecret = (template: string) => /\{\{\s*secrets\./.test(template);

const str = (v: unknown) => (typeof v === "string" ? v : "");
const rec = (v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The request record of a step effect ("step.http" …) from its input and invocation key. */
export function stepRequest(src: string, raw: unknown, key: string): StepRequest | null {
  const i = rec(raw);
  switch (src) {
    case "step.http": {
      const secret = new Set(Array.isArray(i.secretHeaders) ? i.secretHeaders.map(String) : []);
      const headers: Record<string, string> = {};
      // a header is text, or parts (text, and secrets by name: lib/steps/template.ts renderHeader)
      for (const [k, v] of Object.entries(rec(i.headers))) {
        const parts: unknown[] = Array.isArray(v) ? v : [v];
        const hasSecret = parts.some((p) => p !== null && typeof p === "object");
        headers[k] = secret.has(k) || hasSecret || namesSecret(str(v)) ? SECRET_SHOWN : parts.map(str).join("");
      }
      return { kind: "http", method: str(i.method) || "POST", url: str(i.url), headers, ...(i.body !== undefined ? { body: i.body } : {}), idempotencyKey: key };
    }
    case "step.code":
      return { kind: "code", language: str(i.language), source: str(i.source) };
    case "step.external":
      return { kind: "external", queue: str(i.queue), input: i.input ?? null };
    case "step.llm":
      return { kind: "llm", prompt: str(i.prompt), ...(typeof i.system === "string" ? { system: i.system } : {}), ...(i.schema && typeof i.schema === "object" ? { schema: i.schema as Record<string, unknown> } : {}) };
    default:
      return null;
  }
}

/** Earlier steps' records as a worker or a program gets them: without their requests (each would carry the ones before it). */
export function withoutRequests<T extends Record<string, unknown>>(steps: Record<string, T | undefined>): Record<string, Omit<T, "request" | "again">> {
  return Object.fromEntries(
    Object.entries(steps).map(([k, v]) => {
      const { request: _r, again: _a, ...rest } = (v ?? {}) as T & { request?: unknown; again?: unknown };
      void _r;
      void _a;
      return [k, rest];
    }),
  );
}

/** What the run page says of a step that ran again under the same invocation. */
export function ranAgainText(again: RanAgain, kind: string): string {
  if (again === "lease") return "offered again after a worker's lease ran out — same task";
  return kind === "http" ? "ran again after a restart — same Idempotency-Key" : "ran again after a restart";
}
