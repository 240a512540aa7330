// Where a node's row of tags goes below a readable zoom (components/diagram/tag-room.ts), on the
// deep-research overview as the fleet overlay opens it at 1440×900 (zoom 0.6): the collapsed group
// PLANNING and the chip ABORTED to its right, level with it (ELK aligns a layer's tops). A row is
// drawn from its node's padding edge, inside the node's 2 px border (state-node.tsx: top-0
// -translate-y-full, left-2): a long label reaching over ABORTED covers its top edge.
import { describe, expect, it } from "vitest";
import { placeTagRows, rowBox, TAG, type Box, type TagRows } from "@/components/diagram/tag-room";

const ZOOM = 0.6;
const PLANNING: Box = { x: 57.5, y: 12, w: 259, h: 65 };
const ABORTED: Box = { x: 344.5, y: 12, w: 175, h: 65 };
const RESEARCHING: Box = { x: 32, y: 113, w: 310, h: 65 };
const obstacles = [
  { id: "PLANNING", box: PLANNING },
  { id: "ABORTED", box: ABORTED },
  { id: "RESEARCHING", box: RESEARCHING },
];
/** the canvas's widths (px, 12 px semibold system-ui) of the labels measured in Chromium */
const WIDTHS: Record<string, number> = { "2 now · p95 24 min 11 s": 162, "2 now · p95 19 s": 110, "2 now": 41 };
const measure = (t: string) => WIDTHS[t] ?? t.length * 7;

const planning = (label: string): TagRows => ({ id: "PLANNING", box: PLANNING, top: [{ label, short: "2 now", mini: "2" }], bottom: [], side: "left" });

/** The tag as the browser draws it over the top edge (flow units): from the padding edge (inside the 2 px border) up, 8 px in from it, its 12 px text and 16 px line kept on screen, 1 px padding above and below. */
function drawnTop(box: Box, label: string, zoom: number): Box {
  const h = TAG.line / zoom + 2;
  return { x: box.x + 2 + 8, y: box.y + 2 - h, w: (measure(label) + 2 * TAG.pad) / zoom, h };
}
const hit = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

describe("a row of tags beside a neighbour level with its node", () => {
  it("the row's box holds the tag as it is drawn", () => {
    const label = "2 now · p95 24 min 11 s";
    const r = rowBox(PLANNING, [label], "top", "left", ZOOM, measure);
    const d = drawnTop(PLANNING, label, ZOOM);
    expect(r.x).toBeLessThanOrEqual(d.x);
    expect(r.y).toBeLessThanOrEqual(d.y);
    expect(r.x + r.w).toBeGreaterThanOrEqual(d.x + d.w);
    expect(r.y + r.h).toBeGreaterThanOrEqual(d.y + d.h);
  });

  it("a long label that would reach over the neighbour's edges is shortened", () => {
    const label = "2 now · p95 24 min 11 s";
    // (drawn over PLANNING's top edge, it covers ABORTED's top left corner; under its bottom edge, ABORTED's
    // bottom left one)
    expect(hit(drawnTop(PLANNING, label, ZOOM), ABORTED)).toBe(true);
    const places = placeTagRows([planning(label)], obstacles, ZOOM, measure).get("PLANNING");
    expect(places?.top).toEqual({ edge: "top", form: "short" });
  });

  it("under the bottom edge where the neighbour ends higher up", () => {
    const short = obstacles.map((o) => (o.id === "ABORTED" ? { ...o, box: { ...ABORTED, h: 40 } } : o));
    const places = placeTagRows([planning("2 now · p95 24 min 11 s")], short, ZOOM, measure).get("PLANNING");
    expect(places?.top).toEqual({ edge: "bottom", form: "full" });
  });

  it("a label that ends short of the neighbour stays over the top edge", () => {
    const places = placeTagRows([planning("2 now · p95 19 s")], obstacles, ZOOM, measure).get("PLANNING");
    expect(places?.top).toEqual({ edge: "top", form: "full" });
  });

  it("without the neighbour, the long label stays over the top edge", () => {
    const places = placeTagRows([planning("2 now · p95 24 min 11 s")], obstacles.filter((o) => o.id !== "ABORTED"), ZOOM, measure).get("PLANNING");
    expect(places?.top).toEqual({ edge: "top", form: "full" });
  });
});
