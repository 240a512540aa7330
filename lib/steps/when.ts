// `when:` guards of steps: `when: [{ if: "steps.SCORE.output.score >= 0.8", to: PUBLISH }]`.
// An expression is CEL (the Common Expression Language of Kubernetes and Envoy policies),
// evaluated by @marcbachmann/cel-js: an interpreter over a parsed tree (no eval, no new
// Function), no side effects, no loops beyond the macros over a list, and no property a value
// does not own (`x.constructor` is "no such key"). Expressions see `input`, `steps` (each
// step's record: `steps.DRAFT.output`) and `review` (the last decision, or null).
// `matches()` is refused: a regular expression over user text can take unbounded time.
import { Environment, type ASTNode } from "@marcbachmann/cel-js";
import type { Scope } from "./template";

const env = new Environment({ limits: { maxAstNodes: 400, maxDepth: 32 } })
  .registerVariable("input", "map")
  .registerVariable("steps", "map")
  .registerVariable("review", "dyn");

type Compiled = ReturnType<Environment["parse"]>;
const compiled = new Map<string, Compiled>();

function compile(expr: string): Compiled {
  let c = compiled.get(expr);
  if (!c) {
    c = env.parse(expr);
    if (compiled.size > 2_000) compiled.clear();
    compiled.set(expr, c);
  }
  return c;
}

/** Every node of a parsed expression (args hold nodes, lists of nodes, map entries, names and literals). */
function* nodes(n: unknown): Generator<ASTNode> {
  if (Array.isArray(n)) {
    for (const x of n) yield* nodes(x);
    return;
  }
  if (!n || typeof n !== "object" || !("op" in n)) return;
  yield n as ASTNode;
  yield* nodes((n as unknown as { args: unknown }).args);
}

/** CEL's comprehensions: each walks a list (or map) once */
const MACROS = new Set(["map", "filter", "all", "exists", "exists_one"]);

export interface WhenInfo {
  /** why the expression cannot be used, or null */
  problem: string | null;
  /** the stages it names as steps.<STAGE> (dotted or steps["STAGE"]) */
  steps: string[];
  /** whether it reads review */
  review: boolean;
}

/** Parse and check an expression: syntax, names, that it gives true or false. */
export function whenInfo(expr: string): WhenInfo {
  let parsed: Compiled;
  try {
    parsed = compile(expr);
  } catch (e) {
    return { problem: firstLine(e), steps: [], review: false };
  }
  const steps = new Set<string>();
  let review = false;
  let problem: string | null = null;
  for (const n of nodes(parsed.ast)) {
    const op = n.op as string;
    const args = (n as { args: unknown }).args as unknown[];
    if (op === "id" && (args as unknown as string) === "review") review = true;
    if ((op === "call" || op === "rcall") && args[0] === "matches") problem ??= "matches() is not available in when: (a regular expression can take unbounded time); use contains, startsWith or endsWith";
    // a list macro inside another multiplies their lengths (five nested over 60 items: 60^5 steps)
    if (op === "rcall" && MACROS.has(args[0] as string) && [...nodes(args.slice(1))].some((m) => m.op === "rcall" && MACROS.has((m as unknown as { args: unknown[] }).args[0] as string)))
      problem ??= `${args[0]}() holds another list macro (${[...MACROS].join(", ")}): refused, their cost multiplies`;
    // steps.X or steps["X"]
    if ((op === "." || op === "[]") && (args[0] as ASTNode | undefined)?.op === "id" && ((args[0] as { args: unknown }).args as string) === "steps") {
      const name = op === "." ? (args[1] as string) : (args[1] as { op: string; args: unknown }).op === "value" ? String((args[1] as { args: unknown }).args) : null;
      if (name === null) problem ??= "name the step: steps.<STAGE> (not a computed key)";
      else steps.add(name);
    }
  }
  if (!problem) {
    const checked = parsed.check();
    if (!checked.valid) problem = firstLine(checked.error);
    else if (checked.type !== "bool" && checked.type !== "dyn") problem = `gives ${checked.type}, not true or false`;
  }
  return { problem, steps: [...steps], review };
}

const firstLine = (e: unknown) => (e instanceof Error ? e.message : String(e)).split("\n")[0]!.trim();

const usable = new Map<string, boolean>();

/** Whether the expression holds in this scope. An error while evaluating (a missing key: use has()) counts as false. */
export function whenHolds(expr: string, scope: Scope): boolean {
  // what saving refuses is never evaluated (a definition stored before a rule was added included)
  let ok = usable.get(expr);
  if (ok === undefined) {
    ok = whenInfo(expr).problem === null;
    if (usable.size > 2_000) usable.clear();
    usable.set(expr, ok);
  }
  if (!ok) return false;
  try {
    return compile(expr)({ input: scope.input ?? {}, steps: scope.steps ?? {}, review: scope.review ?? null }) === true;
  } catch {
    return false;
  }
}
