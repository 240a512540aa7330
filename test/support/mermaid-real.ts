// The real Mermaid parser (the `mermaid` package, dev dependency) in Node: happy-dom supplies the
// DOM it expects, and its diagram API reads a stateDiagram into its state db. readWithMermaid
// turns that reading into plain data (states with their parents and kinds, starts, ends,
// transitions with labels, descriptions) to compare with our own FlowConfig.
import { Window } from "happy-dom";
import { decodeEntities } from "../../lib/flows/mermaid-read";

type MermaidApi = typeof import("mermaid").default;
let api: Promise<MermaidApi> | undefined;

export function mermaid(): Promise<MermaidApi> {
  return (api ??= (async () => {
    const w = new Window();
    Object.assign(globalThis, { window: w, document: w.document });
    const m = (await import("mermaid")).default;
    m.initialize({ startOnLoad: false, securityLevel: "loose" });
    return m;
  })());
}

/**
 * Ids, labels and descriptions are trimmed (as Mermaid trims them) and their entity codes
 * decoded (Mermaid's preprocessing turns `#59;` into a marker its renderer shows as `;`).
 * A composite that Mermaid makes its own parent (a transition back to it from inside) counts
 * as top-level.
 */
export interface MermaidReading {
  /** state id → its composite (null at the top level), kind, and descriptions joined by line breaks */
  states: Record<string, { parent: string | null; kind: string; note: string }>;
  /** "A -> B" with "[*]" for a start (scoped "[*]@Composite" inside one) or an end → the labels joined by " / " */
  edges: Record<string, string>;
}

interface Node {
  id: string;
  label?: string;
  shape?: string;
  parentId?: string;
  description?: string[];
}
interface Item {
  stmt: string;
  id?: string;
  description?: string | string[];
  doc?: Item[];
  state1?: Item;
  state2?: Item;
}
interface Edge {
  start: string;
  end: string;
  label?: string;
}

/** Mermaid's own reading of a diagram; throws what Mermaid throws for text it refuses. */
export async function readWithMermaid(text: string): Promise<MermaidReading> {
  const m = await mermaid();
  const diagram = await m.mermaidAPI.getDiagramFromText(text);
  const db = diagram.db as unknown as { getData(): { nodes: Node[]; edges: Edge[] }; getRootDocV2(): Item };
  const { nodes, edges } = db.getData();
  // labels and descriptions as parsed: getData runs them through DOMPurify, which under happy-dom
  // drops text a browser keeps ("if n < 0"); the walk below is the one getData makes, in its order
  const relations: Item[] = [];
  const described = new Map<string, string[]>();
  const walk = (doc: Item[]) => {
    for (const item of doc) {
      if (typeof item !== "object" || item === null) continue;
      const states = item.stmt === "relation" ? [item.state1!, item.state2!] : item.stmt === "state" ? [item] : [];
      for (const st of states) {
        const d = st.description;
        for (const text of Array.isArray(d) ? d : d ? [d] : []) described.set(st.id!, [...(described.get(st.id!) ?? []), text]);
      }
      if (item.stmt === "relation") relations.push(item);
      if (item.stmt === "state" && item.doc) walk(item.doc);
    }
  };
  walk(db.getRootDocV2().doc ?? []);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const skip = new Set(["divider", "noteGroup"]);
  /** the composite around a node: through region dividers and note groups */
  const parentOf = (n: Node): string | null => {
    let p = n.parentId ? byId.get(n.parentId) : undefined;
    while (p && skip.has(p.shape ?? "")) p = p.parentId ? byId.get(p.parentId) : undefined;
    return p?.id ?? null;
  };
  const pseudo = new Set(["stateStart", "stateEnd", "note", "noteGroup", "divider"]);
  const states: MermaidReading["states"] = {};
  for (const n of nodes) {
    if (pseudo.has(n.shape ?? "")) continue;
    const kind = n.shape === "choice" || n.shape === "fork" || n.shape === "join" ? n.shape : "state";
    const descriptions = described.get(n.id) ?? [];
    const id = decodeEntities(n.id);
    const parent = parentOf(n);
    states[id] = { parent: parent === null || parent === n.id ? null : decodeEntities(parent), kind, note: descriptions.map((d) => d.trim()).filter(Boolean).map(decodeEntities).join("\n") };
  }
  const side = (id: string) => {
    const n = byId.get(id);
    if (n?.shape === "stateStart") {
      const p = parentOf(n);
      return p ? `[*]@${decodeEntities(p)}` : "[*]";
    }
    if (n?.shape === "stateEnd") return "[*]";
    return decodeEntities(id);
  };
  const labels: Record<string, string[]> = {};
  let r = 0;
  for (const e of edges) {
    const a = byId.get(e.start);
    const b = byId.get(e.end);
    if (a?.shape === "note" || b?.shape === "note") continue;
    const key = `${side(e.start)} -> ${side(e.end)}`;
    const list = (labels[key] ??= []);
    const rel = relations[r++]!;
    const label = decodeEntities((typeof rel.description === "string" ? rel.description : "").trim());
    if (label && !list.includes(label)) list.push(label);
  }
  return { states, edges: Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, v.join(" / ")])) };
}

/** Our FlowConfig in the same shape as readWithMermaid's reading. */
export function flowReading(c: import("../../lib/flows/types").FlowConfig): MermaidReading {
  const kind = (s: string) => (c.choices?.includes(s) ? "choice" : c.forks?.includes(s) ? "fork" : c.joins?.includes(s) ? "join" : "state");
  const own = <T>(rec: Record<string, T> | undefined, k: string) => (rec && Object.hasOwn(rec, k) ? rec[k] : undefined);
  const states: MermaidReading["states"] = {};
  for (const s of c.stages) states[s] = { parent: own(c.parents, s) ?? null, kind: kind(s), note: own(c.notes, s) ?? "" };
  const edges: MermaidReading["edges"] = {};
  const label = (k: string) => own(c.labels, k) ?? "";
  if (c.initial_stage && !c.implicit_start) edges[`[*] -> ${c.initial_stage}`] = label(`[*] -> ${c.initial_stage}`);
  for (const [comp, xs] of Object.entries(c.initials ?? {})) for (const x of xs) edges[`[*]@${comp} -> ${x}`] = label(`[*] -> ${x}`);
  for (const s of c.stages) for (const t of own(c.transitions, s) ?? []) edges[`${s} -> ${t}`] = label(`${s} -> ${t}`);
  for (const s of c.ends ?? []) edges[`${s} -> [*]`] = label(`${s} -> [*]`);
  return { states, edges };
}
