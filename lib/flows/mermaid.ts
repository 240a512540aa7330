// Mermaid `stateDiagram-v2` ⇄ FlowConfig, and a built-in workflow's derived graph → FlowConfig.
//
// A hand-written line parser: there is no maintained npm parser for stateDiagram that runs in
// Node without a DOM (mermaid's own parser ships inside the browser renderer), and the subset a
// FlowConfig can hold is small. It reads: an optional ```mermaid fence and `---` front matter
// (title), the `stateDiagram-v2` / `stateDiagram` header, `%%` comments, `A --> B : label`,
// `[*]` starts and ends, `state X { … }` composites (nested; `--` region separators are skipped,
// each region's `[*] --> Y` is one more entry in initials[X]), `state X <<choice>>`, notes on
// states (`X : text`, `state X : text`, `state "text" as X`), `accDescr: text` (description).
// Styling (`direction`, `classDef`, `class`, `style`, `:::cls`) and `note … of X` are skipped.
// Limits: state names must be plain identifiers ([A-Za-z_][A-Za-z0-9_]*) both ways, and the
// writer also refuses Mermaid keywords (state, note, end, …); a state belongs to the composite in
// which it is first mentioned; fork/join are reported as issues; without a top-level `[*] -->`
// the first top-level state is the initial one.
import { eventLabel, type GraphState, type WorkflowGraph } from "../graph/derive";
import { END, edgeKey, type FlowConfig, type FlowIssue, type ParsedFlow } from "./types";

const ID = String.raw`[A-Za-z_][A-Za-z0-9_]*`;
const NAME = String.raw`(${ID})(?::::[\w-]+)?`; // a state name with an optional :::class suffix
const SIDE = String.raw`(\[\*\]|${ID})(?::::[\w-]+)?`;
const RE = {
  arrow: new RegExp(`^${SIDE}\\s*-->\\s*${SIDE}\\s*(?::(.*))?$`),
  skipped: /^(direction\s+\w+$|classDef\s|class\s|style\s|scale\s|hide empty description$|accTitle\s*:)/,
  descr: /^accDescr\s*:(.*)$/,
  noteLine: new RegExp(`^note\\s+(?:left|right)\\s+of\\s+${NAME}\\s*:`),
  noteBlock: new RegExp(`^note\\s+(?:left|right)\\s+of\\s+${NAME}$`),
  stateAs: new RegExp(`^state\\s+"([^"]*)"\\s+as\\s+${NAME}\\s*(\\{)?$`),
  stateKind: new RegExp(`^state\\s+${NAME}\\s*<<(\\w+)>>$`),
  stateOpen: new RegExp(`^state\\s+${NAME}\\s*\\{$`),
  decl: new RegExp(`^(?:state\\s+)?${NAME}$`),
  note: new RegExp(`^(?:state\\s+)?${NAME}\\s*:(.*)$`),
};
const PLAIN = new RegExp(`^${ID}$`);
/** words the parser (or Mermaid) reads as keywords, so not usable as state names */
const RESERVED = new Set(["state", "note", "end", "direction", "class", "classDef", "style", "scale", "accTitle", "accDescr", "stateDiagram", "__proto__"]);

const has = (rec: object, key: string) => Object.hasOwn(rec, key);
/** rec[key] when rec has it as its own (a state may be called "constructor") */
const own = <T>(rec: Record<string, T> | undefined, key: string): T | undefined => (rec && has(rec, key) ? rec[key] : undefined);
const slug = (s?: string) => s?.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || undefined;
function unquote(v: string): string {
  v = v.trim();
  try {
    if (/^".*"$/.test(v)) return String(JSON.parse(v));
  } catch {} // not JSON: just strip the quotes
  return /^(["']).*\1$/.test(v) ? v.slice(1, -1) : v;
}
const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ").trim();

export function parseMermaid(source: string, opts: { id?: string } = {}): ParsedFlow {
  const rows = source.split(/\r?\n/);
  const issues: FlowIssue[] = [];
  const lines: Record<string, number> = {};
  const seen = new Set<string>();
  const stages: string[] = [];
  const transitions: Record<string, string[]> = {};
  const parents: Record<string, string> = {};
  const initials: Record<string, string[]> = {};
  const ends: string[] = [];
  const choices: string[] = [];
  const labelParts = new Map<string, string[]>();
  const notes: Record<string, string> = {};
  const scopes: { name: string; line: number }[] = [];
  let initial = "";
  let title: string | undefined;
  let description: string | undefined;
  let arrows = 0;
  let inNote = 0; // the line of an open `note … of X` block
  const issue = (line: number, message: string) => void issues.push({ message: `line ${line}: ${message}`, line });

  const mention = (name: string, line: number) => {
    if (seen.has(name)) return;
    seen.add(name);
    stages.push(name);
    transitions[name] = [];
    lines[name] = line;
    const scope = scopes.at(-1);
    if (scope) parents[name] = scope.name;
  };
  const addNote = (name: string, text: string) => {
    text = text.trim();
    if (text && seen.has(name)) notes[name] = has(notes, name) ? `${notes[name]}\n${text}` : text;
  };
  const arrow = (a: string, b: string, label: string, line: number) => {
    arrows++;
    const scope = scopes.at(-1)?.name;
    if (a === END && b === END) return issue(line, `"[*] --> [*]" connects nothing`);
    if (a === END) {
      mention(b, line);
      const starts = scope ? (initials[scope] = own(initials, scope) ?? []) : [];
      if (scope) starts.includes(b) || starts.push(b);
      else if (!initial) initial = b;
      else if (initial !== b) return issue(line, `a second top-level start "[*] --> ${b}" (the first is "[*] --> ${initial}")`);
    } else if (b === END) {
      mention(a, line);
      if (!ends.includes(a)) ends.push(a);
    } else {
      mention(a, line);
      mention(b, line);
      if (!transitions[a]!.includes(b)) transitions[a]!.push(b);
    }
    const key = edgeKey(a, b);
    if (!has(lines, key)) lines[key] = line;
    const parts = labelParts.get(key) ?? [];
    if (label && !parts.includes(label)) labelParts.set(key, [...parts, label]);
  };

  const statement = (text: string, line: number) => {
    let m: RegExpExecArray | null;
    if (/\b__proto__\b/.test(text)) return issue(line, `"__proto__" cannot be a state name`);
    if (text === "}") return void (scopes.pop() ?? issue(line, `"}" without a matching "state … {"`));
    if (text === "--") return void (scopes.length || issue(line, `"--" (region separator) outside a composite state`));
    if ((m = RE.arrow.exec(text))) return arrow(m[1]!, m[2]!, (m[3] ?? "").trim(), line);
    if (RE.skipped.test(text) || RE.noteLine.test(text)) return;
    if ((m = RE.descr.exec(text))) return void (description = m[1]!.trim() || undefined);
    if (RE.noteBlock.test(text)) return void (inNote = line);
    if ((m = RE.stateAs.exec(text))) {
      mention(m[2]!, line);
      addNote(m[2]!, m[1]!);
      return void (m[3] && scopes.push({ name: m[2]!, line }));
    }
    if ((m = RE.stateKind.exec(text))) {
      if (m[2] === "fork" || m[2] === "join") return issue(line, "fork/join are not supported; use a composite state with two `[*] -->` starts for parallel regions");
      if (m[2] !== "choice") return issue(line, `<<${m[2]}>> is not supported`);
      mention(m[1]!, line);
      return void (choices.includes(m[1]!) || choices.push(m[1]!));
    }
    if ((m = RE.stateOpen.exec(text))) {
      mention(m[1]!, line);
      return void scopes.push({ name: m[1]!, line });
    }
    // declarations before notes: `A:::cls` must not read as a note "::cls" on A
    if ((m = RE.decl.exec(text))) return mention(m[1]!, line);
    if ((m = RE.note.exec(text))) {
      mention(m[1]!, line);
      return addNote(m[1]!, m[2]!);
    }
    issue(line, `cannot read "${text}"${text.includes("-->") ? " (state names are letters, digits and _)" : ""}`);
  };

  // prelude: an opening fence and/or front matter, in either order
  let i = 0;
  let fenced = false;
  let front = false;
  for (; i < rows.length; i++) {
    const t = rows[i]!.trim();
    if (t === "") continue;
    if (!fenced && /^```\s*mermaid$/i.test(t)) fenced = true;
    else if (!front && t === "---") {
      front = true;
      let j = i + 1;
      for (; j < rows.length && rows[j]!.trim() !== "---"; j++) {
        const m = /^title\s*:(.*)$/.exec(rows[j]!);
        if (m) title = unquote(m[1]!) || undefined;
      }
      if (j >= rows.length) issue(i + 1, "the front matter is never closed with ---");
      i = j;
    } else break;
  }
  let header = false;
  for (; i < rows.length; i++) {
    const raw = rows[i]!;
    if (fenced && /^\s*```\s*$/.test(raw)) break;
    const text = raw.replace(/%%.*$/, "").trim();
    if (!text) continue;
    if (inNote) {
      if (/^end\s+note$/.test(text)) inNote = 0;
      continue;
    }
    if (!header) {
      header = true;
      if (/^stateDiagram(-v2)?$/.test(text)) continue;
      issue(i + 1, `a diagram must start with "stateDiagram-v2", not "${text}"`);
    }
    statement(text, i + 1);
  }
  if (inNote) issue(inNote, `the note is never closed with "end note"`);
  for (const s of scopes) issue(s.line, `"state ${s.name} {" is never closed with "}"`);
  if (!header) issues.push({ message: `the diagram is empty: expected "stateDiagram-v2"` });
  else if (!stages.length) issues.push({ message: "the diagram has no states" });

  const labels: Record<string, string> = {};
  for (const [key, parts] of labelParts) labels[key] = parts.join(" / ");
  const config: FlowConfig = {
    id: opts.id ?? slug(title) ?? "imported-workflow",
    ...(title ? { title } : {}),
    ...(description ? { description } : {}),
    stages,
    // without a top-level `[*] -->`, the first top-level state
    initial_stage: initial || (stages.find((s) => !has(parents, s)) ?? ""),
    transitions,
  };
  if (Object.keys(parents).length) config.parents = parents;
  if (Object.keys(initials).length) config.initials = initials;
  if (ends.length) config.ends = ends;
  if (choices.length) config.choices = choices;
  if (Object.keys(labels).length) config.labels = labels;
  if (Object.keys(notes).length) config.notes = notes;
  return { config, lines, issues, arrows };
}

type Kind = "choice" | "start" | "edge" | "note" | "end";
interface Stmt {
  scope: string | null;
  kind: Kind;
  names: string[];
  text: string;
  /** written only after this one */
  after?: Stmt;
  done?: boolean;
}
const RANK: Record<Kind, number> = { choice: 0, start: 1, edge: 2, note: 4, end: 6 }; // 3: an outgoing edge, 5: a block

/**
 * Writes the config as stateDiagram-v2. Statements are placed so that reading the text back
 * mentions the stages in config.stages order (except inside parallel composites, which are
 * written region by region). Throws when a name is not a plain identifier.
 */
export function flowToMermaid(c: FlowConfig): string {
  const notes = c.notes ?? {};
  const labels = c.labels ?? {};
  const initials = c.initials ?? {};
  const names = new Set([
    ...c.stages,
    ...Object.entries(c.transitions).flat(2),
    ...Object.entries(c.parents ?? {}).flat(),
    ...Object.entries(initials).flat(2),
    ...(c.ends ?? []),
    ...(c.choices ?? []),
    ...Object.keys(notes),
  ]);
  if (c.initial_stage) names.add(c.initial_stage);
  const bad = [...names].filter((s) => !PLAIN.test(s) || RESERVED.has(s));
  if (bad.length) throw new Error(`Mermaid state names must be plain identifiers ([A-Za-z_][A-Za-z0-9_]*, not a keyword): ${bad.map((s) => JSON.stringify(s)).join(", ")}`);

  const known = new Set(c.stages);
  const parentOf = (s: string): string | null => {
    const p = own(c.parents, s);
    return p !== undefined && known.has(p) ? p : null;
  };
  /** s, its parent, …, up to the top level (null) */
  const chain = (s: string | null): (string | null)[] => {
    const out: (string | null)[] = [];
    for (let x = s; x !== null; x = parentOf(x)) {
      if (out.includes(x)) throw new Error(`the parents of "${s}" form a cycle`);
      out.push(x);
    }
    return [...out, null];
  };
  /** the ancestor of s (or s) that is a direct child of scope, if s is inside scope */
  const childOf = (scope: string | null, s: string) => chain(s).find((x): x is string => x !== null && parentOf(x) === scope);
  const lca = (a: string, b: string) => {
    const up = chain(parentOf(b));
    return chain(parentOf(a)).find((x) => up.includes(x)) ?? null;
  };
  const isComposite = (s: string) => c.stages.some((x) => parentOf(x) === s) || (own(initials, s)?.length ?? 0) > 0;
  const label = (key: string) => (own(labels, key) ? ` : ${oneLine(labels[key]!)}` : "");

  // `after` keeps the order of each list within a scope (a stage's transitions, the ends, the
  // choices, a composite's starts); across scopes it cannot be kept, as a composite's block is whole
  const stmts: Stmt[] = [];
  const last = new Map<string, Stmt>();
  const add = (scope: string | null, kind: Kind, names: string[], text: string, list?: string) => {
    const key = `${list}\u0000${scope}`;
    const st: Stmt = { scope, kind, names, text, after: list ? last.get(key) : undefined };
    if (list) last.set(key, st);
    stmts.push(st);
  };
  if (c.initial_stage) add(null, "start", [c.initial_stage], `[*] --> ${c.initial_stage}${label(edgeKey(END, c.initial_stage))}`);
  for (const [comp, xs] of Object.entries(initials)) for (const x of xs) add(comp, "start", [x], `[*] --> ${x}${label(edgeKey(END, x))}`, "starts");
  for (const s of c.choices ?? []) add(parentOf(s), "choice", [s], `state ${s} <<choice>>`, "choices");
  for (const s of c.stages) {
    for (const line of own(notes, s)?.split("\n") ?? []) if (line.trim()) add(parentOf(s), "note", [s], `${s} : ${line.trim()}`);
    for (const t of own(c.transitions, s) ?? []) add(lca(s, t), "edge", [s, t], `${s} --> ${t}${label(edgeKey(s, t))}`, `edges of ${s}`);
  }
  for (const s of c.ends ?? []) add(parentOf(s), "end", [s], `${s} --> [*]${label(edgeKey(s, END))}`, "ends");

  /** parallel composites (2+ starts): each child goes to the region of the first start it connects to */
  const regionsOf = (scope: string | null) => {
    const region = new Map<string, number>();
    const starts = scope === null ? [] : (own(initials, scope) ?? []).map((x) => childOf(scope, x)).filter((x) => x !== undefined);
    if (starts.length < 2) return { region, count: 1 };
    const links = new Map<string, string[]>();
    for (const [a, ts] of Object.entries(c.transitions))
      for (const b of ts) {
        const [x, y] = [childOf(scope, a), childOf(scope, b)];
        if (x && y && x !== y) links.set(x, [...(links.get(x) ?? []), y]).set(y, [...(links.get(y) ?? []), x]);
      }
    starts.forEach((start, r) => {
      for (const queue = region.has(start) ? [] : [start]; queue.length; ) {
        const x = queue.shift()!;
        if (region.has(x)) continue;
        region.set(x, r);
        queue.push(...(links.get(x) ?? []));
      }
    });
    return { region, count: starts.length };
  };

  const out: string[] = [];
  const introduced = new Set<string>();
  const blocks = new Set<string>();
  const emitScope = (scope: string | null, depth: number) => {
    const ind = "    ".repeat(depth);
    const { region, count } = regionsOf(scope);
    const regionOf = (s: string) => region.get(childOf(scope, s) ?? "") ?? 0;
    const mine = stmts.filter((s) => s.scope === scope);
    let wrote = false;
    for (let r = 0; r < count; r++) {
      const pending = mine.filter((s) => Math.max(...s.names.map(regionOf)) === r);
      const members = c.stages.filter((s) => childOf(scope, s) !== undefined && regionOf(s) === r);
      if (!pending.length && !members.length) continue;
      if (wrote) out.push(`${ind}--`);
      wrote = true;
      const write = (st: Stmt) => {
        st.done = true;
        out.push(ind + st.text);
        for (const n of st.names) introduced.add(n);
      };
      const ready = (st: Stmt) => !st.done && (!st.after || st.after.done);
      /** write what is ready and mentions only stages already written (or, with force, anything ready) */
      const flush = (force = false) => {
        for (let again = true; again; ) {
          again = false;
          for (const st of pending)
            if (ready(st) && (force || st.names.every((n) => introduced.has(n)))) {
              write(st);
              again = true;
            }
        }
      };
      const block = (s: string) => {
        blocks.add(s);
        introduced.add(s);
        out.push(`${ind}state ${s} {`);
        emitScope(s, depth + 1);
        out.push(`${ind}}`);
      };
      /** mention s first with the statement that reads most naturally */
      const introduce = (s: string) => {
        let best: Stmt | undefined;
        let bestRank = 7;
        for (const st of pending) {
          if (!ready(st) || !st.names.includes(s) || !st.names.every((n) => n === s || introduced.has(n))) continue;
          const rank = st.kind === "edge" && st.names[0] === s && st.names[1] !== s ? 3 : RANK[st.kind];
          if (rank < bestRank) [best, bestRank] = [st, rank];
        }
        if (isComposite(s) && bestRank > 5) return block(s);
        if (best) return write(best);
        out.push(ind + s);
        introduced.add(s);
      };
      for (const s of members) {
        const child = childOf(scope, s)!;
        if (!introduced.has(child)) introduce(child);
        if (child !== s && !blocks.has(child)) block(child);
        flush();
      }
      for (const s of members) if (parentOf(s) === scope && isComposite(s) && !blocks.has(s)) block(s);
      flush(true);
      pending.forEach((st) => st.done || write(st)); // waiting for one in another region
    }
  };
  const head: string[] = [];
  if (c.title) head.push("---", `title: ${/^[\w][\w .,()/-]*$/.test(c.title) ? c.title : JSON.stringify(c.title)}`, "---");
  head.push("stateDiagram-v2");
  if (c.description) head.push(`    accDescr: ${oneLine(c.description)}`);
  emitScope(null, 1);
  return [...head, ...out].join("\n") + "\n";
}

/**
 * A built-in workflow's graph as a FlowConfig. Stage names are the last path segment when that
 * is unique, else the path with "." → "_" (other characters → "_"). Final states are dropped: a
 * transition into one makes its source an end. The regions of a parallel state are flattened:
 * their children become the parallel state's children and initials[parallel] lists each region's
 * initial child. Targetless (internal) and self transitions are left out.
 */
export function graphToFlow(graph: WorkflowGraph, meta: { id: string; title?: string; description?: string }): FlowConfig {
  const byId = new Map(graph.states.map((s) => [s.id, s]));
  const isRegion = (s: GraphState | undefined) => !!s && s.type === "compound" && s.parent !== null && byId.get(s.parent)?.type === "parallel";
  const kept = graph.states.filter((s) => s.type !== "final" && s.type !== "history" && !isRegion(s));
  const clean = (x: string) => x.replace(/[^A-Za-z0-9_]/g, "_").replace(/^(?=[0-9]|$)/, "_");
  const last = (s: GraphState) => clean(s.id.split(".").pop()!);
  const counts = new Map<string, number>();
  for (const s of kept) counts.set(last(s), (counts.get(last(s)) ?? 0) + 1);
  const name = new Map<string, string>();
  const used = new Set<string>();
  for (const s of kept) {
    let n = counts.get(last(s)) === 1 ? last(s) : clean(s.id.replace(/\./g, "_"));
    while (used.has(n) || RESERVED.has(n)) n += "_";
    used.add(n);
    name.set(s.id, n);
  }
  const childrenOf = (id: string) => graph.states.filter((s) => s.parent === id);
  /** the stage entered when a transition targets id (null for a final state) */
  const entered = (id: string): string | null => {
    const s = byId.get(id);
    if (!s || s.type === "final") return null;
    if (s.type === "history") return s.parent ? entered(s.parent) : null;
    if (isRegion(s)) return entered(childrenOf(s.id).find((x) => x.initial)?.id ?? s.parent!);
    return name.get(s.id) ?? null;
  };

  const config: FlowConfig = { id: meta.id, ...(meta.title ? { title: meta.title } : {}), ...(meta.description ? { description: meta.description } : {}), stages: kept.map((s) => name.get(s.id)!), initial_stage: "", transitions: {} };
  const parents: Record<string, string> = {};
  const initials: Record<string, string[]> = {};
  const notes: Record<string, string> = {};
  for (const s of kept) {
    const n = name.get(s.id)!;
    config.transitions[n] = [];
    const p = s.parent === null ? null : isRegion(byId.get(s.parent)) ? byId.get(s.parent)!.parent : s.parent;
    if (p !== null) parents[n] = name.get(p)!;
    else if (s.initial) config.initial_stage = n;
    const starts =
      s.type === "parallel"
        ? childrenOf(s.id).map((r) => (isRegion(r) ? entered(r.id) : name.get(r.id) ?? null))
        : childrenOf(s.id).filter((x) => x.initial).map((x) => entered(x.id));
    const ok = starts.filter((x): x is string => x !== null);
    if (ok.length) initials[n] = ok;
    const note = [s.name !== s.id.split(".").pop() ? s.name : null, s.description ?? s.summary].filter(Boolean).join("\n");
    if (note) notes[n] = note;
  }
  const ends: string[] = [];
  const labelParts = new Map<string, string[]>();
  for (const t of graph.transitions) {
    if (t.internal || t.target === t.source) continue;
    const src = byId.get(t.source);
    const a = name.get(isRegion(src) ? src!.parent! : t.source);
    if (!a) continue;
    const toFinal = byId.get(t.target)?.type === "final";
    const b = toFinal ? END : entered(t.target);
    if (!b || b === a) continue;
    if (toFinal) ends.includes(a) || ends.push(a);
    else if (!config.transitions[a]!.includes(b)) config.transitions[a]!.push(b);
    const text = (t.event.startsWith("xstate.done.state.") ? "done" : eventLabel(t.event)) + (t.guard ? ` [${t.guard}]` : "");
    const key = edgeKey(a, b);
    const parts = labelParts.get(key) ?? [];
    if (!parts.includes(text)) labelParts.set(key, [...parts, text]);
  }
  if (Object.keys(parents).length) config.parents = parents;
  if (Object.keys(initials).length) config.initials = initials;
  if (ends.length) config.ends = ends;
  if (labelParts.size) config.labels = Object.fromEntries([...labelParts].map(([k, v]) => [k, v.join(" / ")]));
  if (Object.keys(notes).length) config.notes = notes;
  return config;
}

export const graphToMermaid = (graph: WorkflowGraph, meta: { id: string; title?: string; description?: string }) => flowToMermaid(graphToFlow(graph, meta));
