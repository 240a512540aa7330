// Where a node's tags go below a readable zoom (chip mode), where they keep their size on screen
// (12 px text) while the chips shrink: a row of tags is drawn over its node's top edge (the
// overlay's notes) or under its bottom edge (badges) only where it covers no other node and no
// row placed before it; else on the other edge; else shortened (a tag's `short`: the fleet's "2
// now" without its p95); else not drawn (its text stays in the node's tooltip and in the panel
// beside the diagram), or an overview chip's has the row's counts (a tag's `mini`) inside it, after
// its name. Pure but for the text measure given to it.

/** A laid-out box in flow units (the diagram's coordinates at zoom 1). */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface TagRowItem {
  label: string;
  short?: string;
  mini?: string;
}

export interface TagRows {
  id: string;
  box: Box;
  /** the row that prefers the top edge (the overlay's tags, a node's alert) */
  top: TagRowItem[];
  /** the row that prefers the bottom edge (badges) */
  bottom: TagRowItem[];
  /** which end of the node the rows start from */
  side: "left" | "right";
  /** the node is an overview chip, with room after its name for the row's counts */
  inside?: boolean;
}

/** full: every tag whole; short: only the tags with a short form, in it */
export type RowForm = "full" | "short" | "mini";
export interface RowPlace {
  /** inside: in the chip, after its name (the mini form) */
  edge: "top" | "bottom" | "inside";
  form: RowForm;
}
/** per node: where its top row and its bottom row go (null: not drawn) */
export interface NodePlaces {
  top: RowPlace | null;
  bottom: RowPlace | null;
}

/** A tag on screen (px): 12 px text, 6 px padding on each side, a 16 px line. */
export const TAG = { font: 12, pad: 6, line: 16 };
/** A count in a chip (px on screen): 11 px text in a 14 px line, 4 px padding on each side; the chip keeps this much of its name beside them. */
export const MINI = { font: 11, pad: 4, line: 14, name: 40 };
/** flow units between the tags of a row, from the node's outer side (left-2 inside its 2 px border), and the tag's 1 px padding above and below */
const GAP = 4;
const INSET = 10;
const PAD_Y = 2;
/**
 * A node's border (flow units: state-node.tsx's border-2). A row is drawn from the node's padding
 * edge, inside it (top-0 -translate-y-full, bottom-0 translate-y-full): it reaches this far into
 * its node, and so into a neighbour whose edge is level with the node's (ELK aligns a layer's tops).
 */
const BORDER = 2;
/** room (screen px) kept around a tag by the measure's rounding */
const SLACK = 2;

const hit = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** The labels a row shows in a form (empty: nothing to show). */
export const rowLabels = (items: TagRowItem[], form: RowForm): string[] => (form === "full" ? items.map((i) => i.label) : items.flatMap((i) => { const l = form === "short" ? i.short : i.mini; return l ? [l] : []; }));

/** The box a row of `labels` takes at `zoom` over an edge of `box` (flow units), as drawn: from the node's padding edge out (BORDER). */
export function rowBox(box: Box, labels: string[], edge: "top" | "bottom", side: "left" | "right", zoom: number, measure: (text: string) => number): Box {
  const w = labels.reduce((sum, l) => sum + (measure(l) + 2 * TAG.pad + SLACK) / zoom, 0) + GAP * Math.max(0, labels.length - 1);
  const h = (TAG.line + SLACK) / zoom + PAD_Y;
  const x = side === "left" ? box.x + INSET : box.x + box.w - INSET - w;
  return { x, y: edge === "top" ? box.y + BORDER - h : box.y + box.h - BORDER, w, h };
}

/**
 * Each node's rows at `zoom`, placed in reading order (top to bottom, left to right): a row keeps
 * clear of every other node's box (`obstacles`: the states drawn, not the groups around them) and
 * of the rows placed before it.
 */
export function placeTagRows(rows: TagRows[], obstacles: { id: string; box: Box }[], zoom: number, measure: (text: string) => number): Map<string, NodePlaces> {
  const out = new Map<string, NodePlaces>();
  const placed: Box[] = [];
  const order = [...rows].sort((a, b) => a.box.y - b.box.y || a.box.x - b.box.x);
  const free = (id: string, r: Box) => !placed.some((p) => hit(p, r)) && !obstacles.some((o) => o.id !== id && hit(o.box, r));
  for (const row of order) {
    const places: NodePlaces = { top: null, bottom: null };
    for (const which of ["top", "bottom"] as const) {
      const items = row[which];
      if (!items.length) continue;
      const other = which === "top" ? "bottom" : "top";
      for (const [edge, form] of [[which, "full"], [other, "full"], [which, "short"], [other, "short"]] as const) {
        const labels = rowLabels(items, form);
        if (!labels.length) continue;
        const r = rowBox(row.box, labels, edge, row.side, zoom, measure);
        if (!free(row.id, r)) continue;
        placed.push(r);
        places[which] = { edge, form };
        break;
      }
      // no room beside the chip: its counts inside it, where its (on-screen) box holds them and a few letters of its name
      const minis = rowLabels(items, "mini");
      if (!places[which] && row.inside && minis.length) {
        const all = which === "top" ? minis : [...(places.top?.edge === "inside" ? rowLabels(row.top, "mini") : []), ...minis];
        const w = all.reduce((sum, l) => sum + measure(l) * (MINI.font / TAG.font) + 2 * MINI.pad + SLACK, 0);
        if ((row.box.h - 2 * BORDER) * zoom >= MINI.line && (row.box.w - 2 * BORDER) * zoom >= w + MINI.name) places[which] = { edge: "inside", form: "mini" };
      }
    }
    out.set(row.id, places);
  }
  return out;
}

/** The width (px) of a tag's text in the page's font, 12 px semibold (a canvas measure; an estimate without one). */
export function tagTextMeasure(): (text: string) => number {
  const ctx = typeof document !== "undefined" ? document.createElement("canvas").getContext("2d") : null;
  if (!ctx) return (t) => t.length * TAG.font * 0.7;
  ctx.font = `600 ${TAG.font}px ${getComputedStyle(document.body).fontFamily}`;
  const cache = new Map<string, number>();
  return (t) => {
    let w = cache.get(t);
    if (w === undefined) cache.set(t, (w = Math.ceil(ctx.measureText(t).width)));
    return w;
  };
}

/** A node's places as a string (what a node re-renders on: it changes only when a place does); "" when it has no rows. */
export const placeKey = (p: NodePlaces | undefined): string => (p ? [p.top, p.bottom].map((r) => (r ? `${r.edge}:${r.form}` : "-")).join("|") : "");

/** The places a key says. */
export function placesOf(key: string): NodePlaces {
  const [top, bottom] = key.split("|").map((k): RowPlace | null => {
    const [edge, form] = (k ?? "-").split(":");
    return edge === "top" || edge === "bottom" || edge === "inside" ? { edge, form: form === "short" || form === "mini" ? form : "full" } : null;
  });
  return { top: top ?? null, bottom: bottom ?? null };
}
