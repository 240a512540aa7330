// What can be painted over a workflow's diagram: tags on states, edges drawn in a
// path's colour, one state outlined — two runs' paths, an evaluation's agreement per review, where
// a migration's runs land, what changed between two versions. Keys are state ids and edge ids
// ("source->target"); what sits inside a collapsed group is painted on the group.

/** a: run A's path, b: run B's, both; good / bad / warn / info: a verdict or a note */
export type OverlayTone = "a" | "b" | "both" | "good" | "bad" | "warn" | "info";

export interface OverlayTag {
  label: string;
  tone: OverlayTone;
  /** the tooltip (default: the label) */
  title?: string;
  /** a shorter label for where the whole one has no room (below a readable zoom); without one the tag is then left out (its text stays in the tooltip) */
  short?: string;
  /** the shortest form (a count), drawn inside the node's own chip where neither whole nor short has room beside it */
  mini?: string;
}

export interface DiagramOverlay {
  nodes?: Record<string, OverlayTag[]>;
  edges?: Record<string, "a" | "b" | "both">;
  outline?: string | null;
  /** edge id → how many times runs took it (the fleet overlay): edges drawn thicker with traffic */
  traffic?: Record<string, number>;
}

/** More distinct notes than this from inside one collapsed group are said in one tag (the node is narrow). */
const INSIDE_SHOWN = 2;

/**
 * The tags each drawn node carries (`shown`: a state id → the node it is drawn as). A collapsed
 * group's own tags stand for its insides; without any, its states' tags are gathered on it, each
 * said once, and more than two become one "N notes inside" tag per tone whose tooltip names each
 * state with its note (a row of bare numbers would not say whose they are).
 */
export function tagsByNode(nodes: Record<string, OverlayTag[]>, shown: (id: string) => string, nameOf: (id: string) => string): Record<string, OverlayTag[]> {
  const out: Record<string, OverlayTag[]> = {};
  const inside: Record<string, { id: string; tag: OverlayTag }[]> = {};
  for (const [id, list] of Object.entries(nodes)) {
    const at = shown(id);
    if (at === id) (out[id] ??= []).push(...list);
    else (inside[at] ??= []).push(...list.map((tag) => ({ id, tag })));
  }
  for (const [at, list] of Object.entries(inside)) {
    if (out[at]?.length) continue;
    const tags: OverlayTag[] = [];
    for (const tone of [...new Set(list.map((t) => t.tag.tone))]) {
      const mine = list.filter((t) => t.tag.tone === tone);
      const labels = [...new Set(mine.map((t) => t.tag.label))];
      const say = (t: { id: string; tag: OverlayTag }) => `${nameOf(t.id)}: ${t.tag.title ?? t.tag.label}`;
      if (labels.length <= INSIDE_SHOWN) for (const label of labels) tags.push({ label, tone, title: mine.filter((t) => t.tag.label === label).map(say).join("\n") });
      else tags.push({ label: `${labels.length} notes inside`, tone, title: mine.map(say).join("\n") });
    }
    out[at] = tags;
  }
  return out;
}
