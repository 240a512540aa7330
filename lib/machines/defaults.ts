// Run-input defaults from the environment (BuiltInWorkflow.defaults), merged under a new run's
// input: a given value wins; objects merge one level deep; an empty default object adds nothing.

export function withDefaults(input: unknown, defaults: Record<string, unknown> | undefined): unknown {
  if (!defaults || !input || typeof input !== "object" || Array.isArray(input)) return input;
  const given = input as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...given };
  for (const [k, v] of Object.entries(defaults)) {
    const g = given[k];
    if (v && typeof v === "object" && Object.keys(v).length === 0) continue;
    merged[k] = g && typeof g === "object" && v && typeof v === "object" ? { ...v, ...g } : (g ?? v);
  }
  return merged;
}
