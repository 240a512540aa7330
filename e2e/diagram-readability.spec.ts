// The diagram is readable at the zoom it picks by itself: on each built-in's workflow page and
// on a run page of each, at 1440×900 (and on a 390×844 phone), no two labels (edge labels and
// the texts in the states) intersect, no text is drawn smaller than 11 px (computed font size ×
// the canvas's scale), the view holds the start (a workflow) or the active state (a run), and
// the zoom controls sit above the canvas, never over a state.
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { shot } from "./helpers";

interface Reading {
  scale: number;
  /** the smallest text, in screen px */
  minPx: number;
  smallest: string;
  overlaps: string[];
  texts: number;
  /** the toolbar's bottom edge and the canvas's top edge */
  toolbarBottom: number;
  canvasTop: number;
  /** ids of states whose box is at least partly inside the canvas */
  inView: string[];
}

/** Reads the diagram's label boxes as drawn: getBoundingClientRect clipped by overflow, font size × scale. */
async function readDiagram(page: Page): Promise<Reading> {
  const diagram = page.getByTestId("diagram").first();
  await expect(diagram).toHaveAttribute("data-ready", "");
  // a view animation has finished: the viewport's transform stops changing between two reads
  let last = "";
  await expect
    .poll(async () => {
      const now = await diagram.locator(".react-flow__viewport").evaluate((v) => getComputedStyle(v).transform);
      const still = now === last;
      last = now;
      return still;
    })
    .toBe(true);
  return diagram.evaluate((root) => {
    type R = { l: number; t: number; r: number; b: number };
    const viewport = root.querySelector(".react-flow__viewport") as HTMLElement;
    const scale = new DOMMatrixReadOnly(getComputedStyle(viewport).transform).a;
    const clip = (el: Element): R | null => {
      const b = el.getBoundingClientRect();
      let r: R = { l: b.left, t: b.top, r: b.right, b: b.bottom };
      for (let p = el.parentElement; p && p !== root; p = p.parentElement) {
        if (getComputedStyle(p).overflow === "visible") continue;
        const c = p.getBoundingClientRect();
        r = { l: Math.max(r.l, c.left), t: Math.max(r.t, c.top), r: Math.min(r.r, c.right), b: Math.min(r.b, c.bottom) };
      }
      return r.r - r.l > 0.5 && r.b - r.t > 0.5 ? r : null;
    };
    const ownText = (el: Element) => [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && (n.textContent ?? "").trim() !== "");
    const name = (el: Element) => `${el.closest("[data-state]")?.getAttribute("data-state") ?? el.closest("[data-edge]")?.getAttribute("data-edge")}: "${(el.textContent ?? "").trim().slice(0, 40)}"`;
    // every drawn text: its size
    const texts = [...root.querySelectorAll(".react-flow__node *, [data-edge] *")].filter(ownText);
    let minPx = Infinity;
    let smallest = "";
    for (const el of texts) {
      if (!clip(el)) continue;
      const px = parseFloat(getComputedStyle(el).fontSize) * scale;
      if (px < minPx) {
        minPx = px;
        smallest = name(el);
      }
    }
    // the label boxes: each edge label whole, each text in a state
    const boxes: { el: Element; r: R; name: string }[] = [];
    for (const el of root.querySelectorAll("[data-edge]")) {
      const r = clip(el);
      if (r) boxes.push({ el, r, name: `edge label ${name(el)}` });
    }
    for (const el of texts) {
      if (el.closest("[data-edge]")) continue;
      const r = clip(el);
      if (r) boxes.push({ el, r, name: `state text ${name(el)}` });
    }
    const overlaps: string[] = [];
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i], boxes[j]];
        if (a.el.contains(b.el) || b.el.contains(a.el)) continue;
        const w = Math.min(a.r.r, b.r.r) - Math.max(a.r.l, b.r.l);
        const h = Math.min(a.r.b, b.r.b) - Math.max(a.r.t, b.r.t);
        if (w > 0.5 && h > 0.5) overlaps.push(`${a.name} × ${b.name}`);
      }
    }
    const canvas = root.querySelector(".react-flow")!.getBoundingClientRect();
    const toolbar = root.querySelector("[data-testid=diagram-toolbar]")!.getBoundingClientRect();
    const inView = [...root.querySelectorAll(".react-flow__node [data-state]")]
      .filter((el) => {
        const b = el.getBoundingClientRect();
        return b.right > canvas.left && b.left < canvas.right && b.bottom > canvas.top && b.top < canvas.bottom;
      })
      .map((el) => el.getAttribute("data-state")!);
    return { scale, minPx, smallest, overlaps, texts: texts.length, toolbarBottom: toolbar.bottom, canvasTop: canvas.top, inView };
  });
}

function check(r: Reading, where: string) {
  console.log(`${where}: scale ${r.scale.toFixed(3)}, smallest text ${r.minPx.toFixed(1)} px (${r.smallest}), ${r.overlaps.length} overlapping pair(s) among ${r.texts} texts`);
  expect(r.texts, `${where}: texts were read`).toBeGreaterThan(3);
  expect(r.overlaps, `${where}: labels that intersect`).toEqual([]);
  expect(r.minPx, `${where}: smallest text ${r.smallest}`).toBeGreaterThanOrEqual(11);
  expect(r.toolbarBottom, `${where}: the controls sit above the canvas`).toBeLessThanOrEqual(r.canvasTop + 0.5);
}

const START: Record<string, string> = { "swiss-army": "IDLE", "deep-research": "PLANNING", "domain-agent": "ROUTE", "processing-modes": "RouteRequest", conversation: "INITIAL" };

/** A run of each built-in, in a state it stays in: waiting for a person, done, or idle. */
const RUNS: { workflow: string; input: Record<string, unknown>; settled: RegExp }[] = [
  { workflow: "swiss-army", input: { request: "Explain how runs resume after a restart" }, settled: /^HUMAN_REVIEW$/ },
  { workflow: "deep-research", input: { topic: "durable workflow engines and their timers" }, settled: /approval$/ },
  { workflow: "domain-agent", input: { text: "Am I eating enough protein this week?" }, settled: /^WAIT_USER$/ },
  { workflow: "processing-modes", input: { query: "hello, what can you do?", mode: "CHAT" }, settled: /^Done$/ },
  { workflow: "conversation", input: {}, settled: /^INITIAL$/ },
];

async function startRun(request: APIRequestContext, workflow: string, input: Record<string, unknown>, settled: RegExp): Promise<string> {
  const started = await request.post("/api/runs", { data: { workflow, input } });
  expect(started.status(), await started.text()).toBe(201);
  const { id } = (await started.json()) as { id: string };
  await expect.poll(async () => ((await (await request.get(`/api/runs/${id}`)).json()) as { state: string[] }).state.join(","), { timeout: 30_000 }).toMatch(settled);
  return id;
}

for (const wf of Object.keys(START)) {
  test(`${wf}: the workflow page's diagram is readable at the zoom it chose`, async ({ page }) => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`/workflows/${wf}`);
    const r = await readDiagram(page);
    check(r, `workflow ${wf} 1440×900`);
    // the start is on screen
    expect(r.inView, `${wf}: the start is in view`).toContain(START[wf]);
    await shot(page, `diagram-${wf}-workflow-1440`);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId("diagram").first().scrollIntoViewIfNeeded();
    const phone = await readDiagram(page);
    check(phone, `workflow ${wf} 390×844`);
    await shot(page, `diagram-${wf}-workflow-390`);
  });
}

for (const run of RUNS) {
  test(`${run.workflow}: a run page's diagram is readable and shows the active state`, async ({ page, request }) => {
    const id = await startRun(request, run.workflow, run.input, run.settled);
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`/runs/${id}`);
    const r = await readDiagram(page);
    check(r, `run ${run.workflow} 1440×900`);
    const current = (await page.getByTestId("run-page").getAttribute("data-state"))!.split(",");
    for (const s of current) {
      // the state, or the collapsed group drawn for it, is on screen and marked
      const drawn = r.inView.find((v) => s === v || s.startsWith(`${v}.`));
      expect(drawn, `${run.workflow}: ${s} is in view (in view: ${r.inView.join(", ")})`).toBeTruthy();
    }
    await shot(page, `diagram-${run.workflow}-run-1440`);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId("diagram").first().scrollIntoViewIfNeeded();
    check(await readDiagram(page), `run ${run.workflow} 390×844`);
    await shot(page, `diagram-${run.workflow}-run-390`);
  });
}

test("a collapsed group opens on click and its states are drawn", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto("/workflows/deep-research");
  const diagram = page.getByTestId("diagram");
  await expect(diagram).toHaveAttribute("data-ready", "");
  const group = diagram.locator('[data-state="RESEARCHING"][data-collapsed]');
  await expect(group).toBeVisible();
  const count = Number(await group.getAttribute("data-collapsed"));
  expect(count).toBeGreaterThan(2);
  await expect(diagram.locator('[data-state^="RESEARCHING."]')).toHaveCount(0);
  await group.click();
  await expect(diagram.locator('[data-state^="RESEARCHING."]')).toHaveCount(count);
  check(await readDiagram(page), "deep-research with RESEARCHING opened");
});

test("in dark mode the diagram is dark too: dark canvas and states, light names and edges", async ({ page }) => {
  // relative luminance of a computed colour (rgb()/rgba(), or lab/lch/oklab/oklch(L …) as Tailwind 4 and the browser write them)
  const lum = (css: string) => {
    // lab()/lch() give L in 0–100, oklab()/oklch() in 0–1 (or a percentage)
    const l = /(ok)?l(?:ch|ab)\(([\d.]+)(%?)/.exec(css);
    if (l) return Number(l[2]) / (l[3] || !l[1] ? 100 : 1);
    const [r, g, b] = (css.match(/[\d.]+/g) ?? ["0", "0", "0"]).map(Number);
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
  };
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto("/workflows/swiss-army");
    const diagram = page.getByTestId("diagram");
    await expect(diagram).toHaveAttribute("data-ready", "");
    const colours = await diagram.evaluate((root) => {
      const css = (el: Element | null, p: string) => (el ? getComputedStyle(el).getPropertyValue(p) : "");
      // the colour a box shows: its own background, or the nearest ancestor's when it has none
      const shown = (el: Element | null): string => {
        for (let e = el; e; e = e.parentElement) {
          const c = getComputedStyle(e).backgroundColor;
          if (!/^rgba\(.*,\s*0\)$/.test(c) && c !== "transparent") return c;
        }
        return "";
      };
      const node = root.querySelector('.react-flow__node [data-state="IDLE"]');
      return {
        canvas: shown(root.querySelector(".react-flow")),
        node: shown(node),
        name: css(node?.querySelector(".font-mono") ?? null, "color"),
        // the request edge out of IDLE: a plain (not error, timer or abort) edge
        edge: css(root.querySelector('.react-flow__edge[data-id^="IDLE->"] path.react-flow__edge-path'), "stroke"),
        label: shown(root.querySelector('[data-edge^="IDLE->"]')),
      };
    });
    await shot(page, `diagram-${scheme}`);
    const dark = scheme === "dark";
    for (const k of ["canvas", "node", "label"] as const) expect(lum(colours[k]) < 0.35, `${scheme}: ${k} background ${colours[k]}`).toBe(dark);
    for (const k of ["name", "edge"] as const) expect(lum(colours[k]) > 0.5, `${scheme}: ${k} colour ${colours[k]}`).toBe(dark);
  }
});
