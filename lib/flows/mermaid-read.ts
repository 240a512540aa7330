// Mermaid stateDiagram / stateDiagram-v2 → FlowConfig, read the way Mermaid 12.3 reads it.
//
// The text goes through Mermaid's own steps: its preprocessing (line endings, `%%{ … }%%`
// directives, `%%` comment lines, `#code;` entity codes), its own jison parser (vendored in
// mermaid-jison.ts), the state db's document translation (`[*]` → start / end, `--` → regions)
// and the renderer's data walk (a state's composite is the last composite whose body mentions it;
// its kind — choice, fork, join — is the one of its first mention). What Mermaid reads is what is
// imported, so a state id is any word Mermaid accepts (`1st`, `Überprüfung`, `a.b`, `$a`, …),
// `;` is part of an id, and `#59;` is Mermaid's escape for `;`. Entity codes are decoded
// (`#35;` → `#`, `#lt;` → `<`). Notes (`note … of X`, floating notes) and styling are dropped.
// Several top-level `[*] -->` starts are refused: a run has one initial stage.
import { parse as parseYaml } from "yaml";
import { FRONT_KEY, readFrontSteps } from "./front-matter";
import { stateParser } from "./mermaid-jison";
import { END, edgeKey, type FlowConfig, type FlowIssue, type ParsedFlow } from "./types";

interface Item {
  stmt: string;
  id?: string;
  type?: string;
  description?: string | string[];
  doc?: Item[];
  start?: boolean;
  state1?: Item;
  state2?: Item;
  note?: unknown;
  line?: number;
}

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** Mermaid's entity codes, as its preprocessing leaves them (ﬂ°°35¶ß) or as written (#35;), → text */
export function decodeEntities(s: string): string {
  const named = (n: string) => (Object.hasOwn(NAMED, n) ? NAMED[n]! : `&${n};`);
  const code = (d: string) => {
    const n = Number(d);
    return Number.isInteger(n) && n >= 0 && n <= 0x10ffff ? String.fromCodePoint(n) : `&#${d};`;
  };
  return s.replace(/\uFB02\u00B0\u00B0\+?(\d+)\u00B6\u00DF/g, (_, d: string) => code(d)).replace(/\uFB02\u00B0(\w+)\u00B6\u00DF/g, (_, n: string) => named(n));
}

// Mermaid's preprocessing (src/preprocess.ts, diagram-api/comments.ts, utils.ts encodeEntities),
// except that removed comment lines and directives leave their line breaks, so lines keep their numbers
const DIRECTIVE = /%{2}{\s*(?:(\w+)\s*:|(\w+))\s*(?:(\w+)|((?:(?!}%{2}).|\r?\n)*))?\s*(?:}%{2})?/gi;
function preprocess(text: string): string {
  let t = text.replace(/<(\w+)([^>]*)>/g, (_m, tag: string, attrs: string) => "<" + tag + attrs.replace(/="([^"]*)"/g, "='$1'") + ">");
  t = t.replace(DIRECTIVE, (m) => m.replace(/[^\n]/g, ""));
  t = t.replace(/^\s*%%(?!{)[^\n]+$/gm, (m) => m.replace(/[^\n]/g, ""));
  t = t.replace(/style.*:\S*#.*;/g, (s) => s.slice(0, -1)).replace(/classDef.*:\S*#.*;/g, (s) => s.slice(0, -1));
  t = t.replace(/#\w+;/g, (s) => {
    const inner = s.slice(1, -1);
    return /^\+?\d+$/.test(inner) ? `\uFB02\u00B0\u00B0${inner}\u00B6\u00DF` : `\uFB02\u00B0${inner}\u00B6\u00DF`;
  });
  return t + "\n";
}

const clone = <T>(x: T): T => structuredClone(x);

/** the state db's getRootDocV2: `[*]` gets its scope's _start / _end id, `--` splits a body into regions */
function translate(parent: Item, node: Item, first: boolean, ids: { n: number; root?: number }): void {
  if (node.stmt === "relation") {
    translate(parent, node.state1!, true, ids);
    translate(parent, node.state2!, false, ids);
    return;
  }
  if (node.stmt === "state") {
    if (node.id === END) {
      node.id = parent.id + (first ? "_start" : "_end");
      node.start = first;
    } else {
      if (node.id!.trim() === "root") ids.root ??= node.line ?? 0; // Mermaid's name for the diagram itself: it draws no such state
      node.id = decodeEntities(node.id!.trim());
    }
  }
  if ((node.stmt !== "root" && node.stmt !== "state") || !node.doc) return;
  const doc: Item[] = [];
  let current: Item[] = [];
  for (const st of node.doc) {
    if (st.type === "divider") {
      doc.push({ ...clone(st), doc: clone(current) });
      current = [];
    } else current.push(st);
  }
  if (doc.length > 0 && current.length > 0) {
    doc.push({ stmt: "state", id: `region-${++ids.n}`, type: "divider", doc: clone(current) });
    node.doc = doc;
  }
  for (const d of node.doc) translate(node, d, true, ids);
}

export function parseMermaid(source: string, opts: { id?: string } = {}): ParsedFlow {
  const issues: FlowIssue[] = [];
  const issue = (line: number | undefined, message: string) => void issues.push(line ? { message, line } : { message });
  const rows = source.split(/\r\n?|\n/);

  // a ```mermaid fence and front matter (title), in either order; `offset` lines come before the diagram
  let i = 0;
  let fenced = false;
  let front = false;
  let title: string | undefined;
  // steps carried in the front matter (front-matter.ts), with their lines
  let steps: ReturnType<typeof readFrontSteps>["steps"];
  let keys: ReturnType<typeof readFrontSteps>["keys"] = {};
  const stepLines: Record<string, number> = {};
  for (; i < rows.length; i++) {
    const t = rows[i]!.trim();
    if (t === "") continue;
    if (!fenced && /^```\s*mermaid$/i.test(t)) fenced = true;
    else if (!front && t === "---") {
      front = true;
      let j = i + 1;
      while (j < rows.length && rows[j]!.trim() !== "---") j++;
      if (j >= rows.length) issue(i + 1, "the front matter is never closed with ---");
      try {
        const meta = parseYaml(rows.slice(i + 1, j).join("\n")) as { title?: unknown } | null;
        if (meta && typeof meta === "object" && meta.title != null && String(meta.title).trim()) title = String(meta.title);
        if (meta && typeof meta === "object" && Object.hasOwn(meta, FRONT_KEY)) {
          const front = readFrontSteps(rows.slice(i + 1, j).join("\n"), i + 1);
          steps = front.steps;
          keys = front.keys;
          Object.assign(stepLines, front.lines);
          issues.push(...front.issues);
        }
      } catch (e) {
        const at = (e as { linePos?: { line: number }[] }).linePos?.[0]?.line;
        issue(at ? i + 1 + at : i + 1, `the front matter is not valid YAML${at ? `: ${(e as Error).message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")}` : ""}`);
      }
      i = j;
    } else break;
  }
  const offset = i;
  let end = rows.length;
  if (fenced) for (let j = i; j < rows.length; j++) if (/^\s*```\s*$/.test(rows[j]!)) (end = j), (j = rows.length);
  const body = rows.slice(offset, end);
  const text = preprocess(body.join("\n"));
  const headerAt = text.split("\n").findIndex((r) => r.trim());
  const empty = { id: opts.id ?? keys.id ?? UNNAMED, stages: [], initial_stage: "", transitions: {} } satisfies FlowConfig;
  if (headerAt < 0) return { config: empty, lines: {}, arrows: 0, issues: [{ message: `the diagram is empty: expected "stateDiagram-v2"` }] };
  if (!/^\s*stateDiagram(-v2)?(\s|$)/.test(text.split("\n")[headerAt]!)) {
    issue(offset + headerAt + 1, `a diagram must start with "stateDiagram-v2", not "${body[headerAt]!.trim().slice(0, 80)}"`);
    return { config: empty, lines: {}, arrows: 0, issues };
  }

  // Mermaid's parser; yy is the part of its state db the grammar calls
  let root: Item[] = [];
  let description: string | undefined;
  let dividers = 0;
  const yy = {
    setRootDoc: (d: Item[]) => void (root = d),
    trimColon: (s: string) => (s.startsWith(":") ? s.slice(1).trim() : s.trim()),
    getDividerId: () => `divider-id-${++dividers}`,
    setAccTitle: () => {},
    setAccDescription: (d: string) => void (description = decodeEntities(d.trim()) || undefined),
    setDirection: () => {},
  };
  const lineOf = (l: number | undefined) => (l === undefined ? undefined : offset + l);
  try {
    stateParser.yy = yy;
    stateParser.parse(text);
  } catch (e) {
    issues.push(parseIssue(e, rows, offset, body.length));
    return { config: empty, lines: {}, arrows: 0, issues };
  }
  const top: Item = { stmt: "root", id: "root", doc: root };
  const ids: { n: number; root?: number } = { n: 0 };
  translate({ stmt: "root", id: "root" }, top, true, ids);
  if (ids.root !== undefined) issue(lineOf(ids.root || undefined), `Mermaid draws no state named "root" (its name for the diagram); rename it, or write it #114;oot`);

  // the renderer's walk (dataFetcher): states in the order first met, the last composite wins
  const stages: string[] = [];
  const seen = new Map<string, { kind: string; parent?: string; notes: string[] }>();
  const lines: Record<string, number> = {};
  const edges: { a: string; b: string; label: string; line?: number }[] = [];
  const composites = new Map<string, string>(); // a region (divider) → its composite
  const real = (scope: Item) => (scope.stmt === "root" ? undefined : scope.type === "divider" ? composites.get(scope.id!) || undefined : scope.id);
  const visit = (scope: Item, item: Item) => {
    if (item.start !== undefined) return;
    const id = item.id!;
    if (id === END && !seen.has(id)) issue(lineOf(item.line), `a state cannot be named "[*]"`);
    let s = seen.get(id);
    if (!s) {
      s = { kind: item.type === "fork" || item.type === "join" || item.type === "choice" ? item.type : "state", notes: [] };
      seen.set(id, s);
      stages.push(id);
      if (item.line !== undefined && !Object.hasOwn(lines, id)) lines[id] = lineOf(item.line)!;
    }
    const parent = real(scope);
    if (parent !== undefined && parent !== id) s.parent = parent;
    const d = item.description;
    // trimmed as Mermaid trims them, before the entity codes (`#32;`) are read
    for (const text of Array.isArray(d) ? d : d ? [d] : []) if (text.trim()) s.notes.push(decodeEntities(text.trim()));
  };
  const walk = (scope: Item, doc: Item[]) => {
    for (const item of doc) {
      if (typeof item !== "object" || item === null) continue;
      if (item.stmt === "state") {
        if (item.type === "divider") {
          composites.set(item.id!, real(scope) ?? "");
          walk(item, item.doc ?? []);
          continue;
        }
        visit(scope, item);
        if (item.doc) walk(item, item.doc);
      } else if (item.stmt === "relation") {
        const [a, b] = [item.state1!, item.state2!];
        visit(scope, a);
        visit(scope, b);
        const side = (x: Item) => (x.start === true ? `start:${real(scope) ?? ""}` : x.start === false ? END : x.id!);
        edges.push({ a: side(a), b: side(b), label: decodeEntities(typeof item.description === "string" ? item.description : ""), line: lineOf(item.line) });
      }
    }
  };
  walk(top, top.doc!);

  const transitions: Record<string, string[]> = Object.fromEntries(stages.map((s) => [s, []]));
  const parents: Record<string, string> = {};
  const notes: Record<string, string> = {};
  for (const [id, s] of seen) {
    if (s.parent !== undefined) parents[id] = s.parent;
    if (s.notes.length) notes[id] = s.notes.join("\n");
  }
  const starts = new Map<string, string[]>();
  const ends: string[] = [];
  const labelParts = new Map<string, string[]>();
  let initial = "";
  for (const e of edges) {
    let key: string;
    if (e.a.startsWith("start:") && e.b === END) {
      issue(e.line, `"[*] --> [*]" connects nothing`);
      continue;
    }
    if (e.a.startsWith("start:")) {
      const scope = e.a.slice("start:".length);
      key = edgeKey(END, e.b);
      if (scope) {
        const list = starts.get(scope) ?? [];
        if (!list.includes(e.b)) starts.set(scope, [...list, e.b]);
      } else if (!initial) initial = e.b;
      else if (initial !== e.b) {
        issue(e.line, `a second top-level start "[*] --> ${e.b}" (the first is "[*] --> ${initial}"): a run starts in one stage; draw one [*] and move on from there`);
        continue;
      }
    } else if (e.b === END) {
      key = edgeKey(e.a, END);
      if (!ends.includes(e.a)) ends.push(e.a);
    } else {
      key = edgeKey(e.a, e.b);
      if (!transitions[e.a]!.includes(e.b)) transitions[e.a]!.push(e.b);
    }
    if (e.line !== undefined && !Object.hasOwn(lines, key)) lines[key] = e.line;
    const parts = labelParts.get(key) ?? [];
    if (e.label && !parts.includes(e.label)) labelParts.set(key, [...parts, e.label]);
  }
  if (!stages.length) issues.push({ message: "the diagram has no states" });

  const kinds = (k: string) => stages.filter((s) => seen.get(s)!.kind === k);
  const id = opts.id ?? keys.id ?? slug(title) ?? UNNAMED;
  const config: FlowConfig = {
    id,
    // an export of a workflow without a title writes its id as the title: read back, it has none again
    ...(title && title !== id ? { title } : {}),
    ...(description ? { description } : {}),
    stages,
    // without a top-level `[*] -->`, the first top-level state
    initial_stage: initial || (stages.find((s) => !Object.hasOwn(parents, s)) ?? ""),
    ...(initial ? {} : { implicit_start: true }),
    transitions,
  };
  if (Object.keys(parents).length) config.parents = parents;
  if (starts.size) config.initials = Object.fromEntries(starts);
  if (ends.length) config.ends = ends;
  for (const k of ["choice", "fork", "join"] as const) {
    const list = kinds(k);
    if (list.length) config[`${k}s`] = list;
  }
  if (labelParts.size) config.labels = Object.fromEntries([...labelParts].map(([k, v]) => [k, v.join(" / ")]));
  if (Object.keys(notes).length) config.notes = notes;
  if (steps) config.steps = steps;
  if (keys.inputs) config.inputs = keys.inputs;
  if (keys.run_name) config.run_name = keys.run_name;
  if (keys.result) config.result = keys.result;
  return { config, lines: { ...lines, ...stepLines }, issues, arrows: edges.length, ...(config.id === UNNAMED && !opts.id && !keys.id ? { unnamed: true } : {}) };
}

/** the id a diagram with no id and no title is checked under; it is not saved under it (lib/flows/validate.ts checkForSave) */
export const UNNAMED = "imported-workflow";

const slug = (s?: string) => s?.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || undefined;

/** Mermaid's parse error as an issue on the line it stopped at (an unclosed `state X {` at the line that opens it). */
function parseIssue(e: unknown, rows: string[], offset: number, count: number): FlowIssue {
  const hash = (e as { hash?: { line?: number; token?: unknown; text?: string } }).hash;
  if (!hash) return { message: `cannot read the diagram: ${String((e as Error).message ?? e).split("\n")[0]}` };
  const atEnd = hash.token === 1 || hash.token === "EOF";
  if (atEnd) {
    const open: number[] = [];
    for (let i = offset; i < offset + count; i++) {
      const t = rows[i]!.replace(/%%.*$/, "");
      for (const ch of t) if (ch === "{") open.push(i + 1);
      else if (ch === "}") open.pop();
    }
    const at = open.at(-1);
    if (at) return { message: `"${rows[at - 1]!.trim()}" is never closed with "}"`, line: at };
    const last = rows.slice(0, offset + count).findLastIndex((r) => r.trim()) + 1;
    return keywordIssue(rows, offset, count) ?? { message: `the diagram ends in the middle of a statement`, line: last };
  }
  const keyword = keywordIssue(rows, offset, count);
  if (keyword) return keyword;
  const line = Math.min(offset + (hash.line ?? 0) + 1, offset + count);
  const text = rows[line - 1]!.trim().slice(0, 120);
  const what = hash.token === "INVALID" ? `Mermaid cannot read "${hash.text}" here` : `Mermaid does not expect ${JSON.stringify(hash.text ?? "")} here`;
  return { message: `cannot read "${text}" (${what})`, line };
}

/** words Mermaid's state diagram reads as its own (in any case) wherever a state's name stands in an arrow */
const KEYWORDS = ["note", "state", "class", "classDef", "style", "click", "scale", "default", "stateDiagram", "stateDiagram-v2"];
const KEYWORD = `(${KEYWORDS.map((k) => k.replace(/-/g, "\\-")).join("|")})`;
const AS_TARGET = new RegExp(`-->\\s*${KEYWORD}\\s*(?::|$)`, "i");
const AS_SOURCE = new RegExp(`^\\s*${KEYWORD}\\s*-->`, "i");

/**
 * A Mermaid keyword used as a state's name (`DRAFT --> NOTE`): Mermaid stops somewhere after it,
 * often on a later line. Named as such, on the first line that uses it.
 */
function keywordIssue(rows: string[], offset: number, count: number): FlowIssue | null {
  for (let i = offset; i < offset + count; i++) {
    const row = rows[i]!.replace(/%%.*$/, "");
    const m = AS_TARGET.exec(row) ?? AS_SOURCE.exec(row);
    if (!m) continue;
    const word = m[1]!;
    const kw = KEYWORDS.find((k) => k.toLowerCase() === word.toLowerCase())!;
    return { message: `"${word}" is a Mermaid keyword (${kw}): it cannot be the name of a state. Rename the state (e.g. ${word}_STAGE)`, line: i + 1 };
  }
  return null;
}
