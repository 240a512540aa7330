// A refusal's issues (zod's, or an API's `issues`) as a form shows them: each field's first
// message next to that field, the rest once above the form's button.

export interface Issue {
  /** zod's path, or the API's dotted one ("events.0") */
  path: string | readonly PropertyKey[];
  message: string;
}

/** Split `issues` by the form field their path starts with (`fieldOf` of its first segment; null: not a field). */
export function issuesByField<F extends string>(issues: readonly Issue[], fieldOf: (head: string) => F | null | undefined): { fields: Partial<Record<F, string>>; other: string[] } {
  const fields: Partial<Record<F, string>> = {};
  const other: string[] = [];
  for (const i of issues) {
    const head = typeof i.path === "string" ? i.path.split(".")[0] : String(i.path[0] ?? "");
    const f = fieldOf(head);
    if (f) fields[f] ??= i.message;
    else other.push(i.message);
  }
  return { fields, other };
}
