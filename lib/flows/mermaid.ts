// FlowConfig → Mermaid `stateDiagram-v2`, and a built-in workflow's derived graph → FlowConfig.
// Reading Mermaid is in mermaid-read.ts (Mermaid's own parser); the writer writes what that
// parser reads back the same: any state name (keywords, `1st`, `a.b`, spaces, `;` …) and any
// label or description, with the characters Mermaid would read differently written as its entity
// codes (`#59;` for `;`, `#35;` for `#`, `#10;` for a line break, `#115;tate` for a state named
// `state`). test/mermaid-real.test.ts checks every export with the real `mermaid` package.
import { eventLabel, type GraphState, type WorkflowGraph } from "../graph/derive";
import { frontYaml } from "./front-matter";
import { END, edgeKey, type FlowConfig } from "./types";

export { parseMermaid, decodeEntities } from "./mermaid-read";

/** words Mermaid's lexer reads as keywords where a state id starts (case-insensitive): written with an entity code */
const KEYWORDS = /^(as\s|click\b|href\b|default\b|state\s|note\s|class\s|classdef\s|style\s|scale\s|statediagram(-v2)?\s|hide empty description\b|acctitle\s|accdescr\s|direction\s)/i;

const has = (rec: object, key: string) => Object.hasOwn(rec, key);
/** rec[key] when rec has it as its own (a state may be called "constructor") */
const own = <T>(rec: Record<string, T> | undefined, key: string): T | undefined => (rec && has(rec, key) ? rec[key] : undefined);
const code = (ch: string) => `#${ch.codePointAt(0)};`;
/** text Mermaid would read differently (comments, `;`, `:`, line breaks, entities, HTML, keywords), as entity codes */
function escapeText(s: string, extra: RegExp): string {
  let out = [...s].map((ch) => (extra.test(ch) || (/[#;%:<>&\p{C}\p{Z}]/u.test(ch) && ch !== " ") ? code(ch) : ch)).join("");
  // Mermaid trims leading and trailing spaces
  out = out.replace(/^ +| +$/g, (m) => m.replace(/ /g, "#32;"));
  // its lexer takes any line with "direction" + spaces + TB/BT/RL/LR for a direction statement, and
  // its preprocessing drops the last ";" of a line with "style" or "classDef", ":" and "#"
  out = out.replace(/direction/gi, (w) => code(w[0]!) + w.slice(1));
  return out.replace(/style|classDef/g, (w) => code(w[0]!) + w.slice(1));
}
/** a state id as Mermaid reads it back: no spaces, dashes, quotes, brackets, braces or keywords first */
export function mermaidId(name: string): string {
  const out = escapeText(name, /[\s\-"{}[\]]/);
  // a keyword first, "root" (Mermaid's name for the diagram), or its name for a start or end ("root_start", "X_end")
  const safe = (KEYWORDS.test(name + " ") || name === "root") && !out.startsWith("#") ? code(name[0]!) + out.slice(1) : out;
  return safe.replace(/_(?=(start|end)$)/, "#95;");
}
/** a transition label or description line */
const mermaidText = (s: string) => escapeText(s, /[\n\r]/);
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
    ...(c.forks ?? []),
    ...(c.joins ?? []),
    ...Object.keys(notes),
  ]);
  if (c.initial_stage) names.add(c.initial_stage);
  const id = new Map([...names].map((s) => [s, mermaidId(s)]));
  const w = (s: string) => id.get(s) ?? mermaidId(s);

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
  const label = (key: string) => (own(labels, key) ? ` : ${mermaidText(labels[key]!)}` : "");

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
  if (c.initial_stage && !c.implicit_start) add(null, "start", [c.initial_stage], `[*] --> ${w(c.initial_stage)}${label(edgeKey(END, c.initial_stage))}`);
  for (const [comp, xs] of Object.entries(initials)) for (const x of xs) add(comp, "start", [x], `[*] --> ${w(x)}${label(edgeKey(END, x))}`, "starts");
  for (const kind of ["choice", "fork", "join"] as const) for (const s of c[`${kind}s`] ?? []) add(parentOf(s), "choice", [s], `state ${w(s)} <<${kind}>>`, "choices");
  for (const s of c.stages) {
    // one description per line, as Mermaid lists them; a note with an empty line goes as one, with its line breaks as codes
    const note = own(notes, s);
    const parts = note === undefined ? [] : note.split("\n").some((l) => !l.trim()) ? [note] : note.split("\n");
    for (const line of parts) add(parentOf(s), "note", [s], `${w(s)} : ${mermaidText(line)}`);
    for (const t of own(c.transitions, s) ?? []) add(lca(s, t), "edge", [s, t], `${w(s)} --> ${w(t)}${label(edgeKey(s, t))}`, `edges of ${s}`);
  }
  for (const s of c.ends ?? []) add(parentOf(s), "end", [s], `${w(s)} --> [*]${label(edgeKey(s, END))}`, "ends");

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
      /** st, after the statements of its list that come before it */
      const early = (st: Stmt) => {
        if (st.done) return;
        if (st.after) early(st.after);
        write(st);
      };
      const block = (s: string) => {
        blocks.add(s);
        // Mermaid makes a stage the child of the last composite that mentions it (the top level
        // does not count), so inside a composite a statement naming a stage inside s (an edge
        // leaving or entering s's inside) goes before s's block, and the block mentions it again
        if (scope !== null) {
          const inside = (n: string) => n !== s && childOf(scope, n) === s;
          for (const st of pending) if (!st.done && st.names.some(inside)) early(st);
          for (const n of [...introduced]) if (inside(n)) introduced.delete(n);
        }
        introduced.add(s);
        out.push(`${ind}state ${w(s)} {`);
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
        out.push(ind + w(s));
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
  // front matter: the title (Mermaid's own), and Switchyard's part (front-matter.ts), which Mermaid
  // leaves alone: the id (an import of the export is the same workflow), inputs, run_name, result, steps
  const title = c.title ?? c.id;
  const front = [`title: ${/^\w([\w .,()/-]*[\w.)])?$/.test(title) ? title : JSON.stringify(title)}`, frontYaml({ id: c.id, inputs: c.inputs, run_name: c.run_name, result: c.result, steps: c.steps })];
  head.push("---", ...front, "---");
  head.push("stateDiagram-v2");
  if (c.description) head.push(`    accDescr: ${mermaidText(c.description)}`);
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
    while (used.has(n) || n === "__proto__") n += "_";
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
