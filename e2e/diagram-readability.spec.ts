// The diagram can be read whole: after Fit, on each built-in's workflow page, a run page of each
// and user workflows of 6 and 30 stages, at 1440×900 and 1280×720, every top-level state lies
// inside the canvas, no edge label is cut by the canvas edge, every visible text is 11 px or more
// (font size × the canvas's scale; hidden text does not count) and a minimap is there. A run that
// waits for a person opens with that state whole in view; on a phone its decision and, right after
// it, its path view with the waiting state are in the first screen. Screenshots go to /tmp/diagram-shots (under CI only with E2E_SHOTS=1);
// each check's zoom (as the toolbar shows it), zoom mode and labels shown or hidden are printed and
// appended to /tmp/diagram-shots/zoom-report.txt.
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, test } from "./fixtures";
import { expectInFirstScreen, expectWorkflowSaved, pendingReviewFor, shot as shotIn } from "./helpers";
import fs from "node:fs";
/** the overview chips' text size at zoom 1 (CHIP_FONT in lib/graph/layout.ts) */
const CHIP_FONT = 28;

// the suite's longest file, of independent tests (each starts the runs and workflows it reads): spread over the workers
test.describe.configure({ mode: "parallel" });

const SHOTS = "/tmp/diagram-shots";
const shot = (page: Page, name: string) => shotIn(page, name, { dir: SHOTS });

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
  /** top-level states not wholly inside the canvas */
  outside: string[];
  /** edge labels drawn across the canvas's edge */
  cut: string[];
  minimap: boolean;
  /** states wholly inside the canvas */
  whole: string[];
  /** the zoom as the toolbar shows it ("47%") */
  zoomShown: string;
  /** edge labels drawn, and those hidden at this zoom (shown on hover or focus) */
  labelsShown: number;
  labelsHidden: number;
  /** texts in states and labels not drawn at this zoom (semantic zoom) */
  textsHidden: number;
  /** the top-level states drawn (wholly or partly in the canvas) */
  topLevel: string[];
  /** those whose name is drawn at 11 px or more on screen (whole or cut with an ellipsis) */
  named: string[];
  /** those whose name is drawn whole */
  namedWhole: string[];
}

/** Reads the diagram's label boxes as drawn: getBoundingClientRect clipped by overflow, font size × scale. */
async function readDiagram(page: Page): Promise<Reading> {
  const diagram = page.getByTestId("diagram").first();
  await expect(diagram).toHaveAttribute("data-ready", "");
  // no view change in progress (Fit, a group opened, the view following the run: set when one starts)
  await expect(diagram).not.toHaveAttribute("data-moving");
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
    const inside = (b: DOMRect) => b.left >= canvas.left - 0.5 && b.top >= canvas.top - 0.5 && b.right <= canvas.right + 0.5 && b.bottom <= canvas.bottom + 0.5;
    const states = [...root.querySelectorAll(".react-flow__node [data-state]")];
    const outside = states.filter((el) => !el.getAttribute("data-state")!.includes(".") && !inside(el.getBoundingClientRect())).map((el) => el.getAttribute("data-state")!);
    const whole = states.filter((el) => inside(el.getBoundingClientRect())).map((el) => el.getAttribute("data-state")!);
    const cut = [...root.querySelectorAll("[data-edge]")]
      .filter((el) => {
        const b = el.getBoundingClientRect();
        if (b.width === 0 || b.height === 0) return false;
        const meets = b.right > canvas.left && b.left < canvas.right && b.bottom > canvas.top && b.top < canvas.bottom;
        return meets && !inside(b);
      })
      .map((el) => el.getAttribute("data-edge")!);
    const mm = root.querySelector(".react-flow__minimap");
    // a minimap that draws the machine (its states as rects), not an empty box
    const minimap = !!mm && mm.getBoundingClientRect().width > 0 && mm.querySelectorAll("rect.react-flow__minimap-node").length > 0;
    // each top-level state's name: a text in its own box reading the name (the id's last part)
    const top = [...root.querySelectorAll(".react-flow__node [data-state]")].filter((el) => {
      const id = el.getAttribute("data-state")!;
      const b = el.getBoundingClientRect();
      return !id.includes(".") && b.right > canvas.left && b.left < canvas.right && b.bottom > canvas.top && b.top < canvas.bottom;
    });
    const nameOf = (el: Element) =>
      [...el.querySelectorAll("*")].find((t) => ownText(t) && t.closest("[data-state]") === el && (t.textContent ?? "").trim() === el.getAttribute("data-state")!.split(".").pop());
    const named: string[] = [];
    const namedWhole: string[] = [];
    for (const el of top) {
      const t = nameOf(el) as HTMLElement | undefined;
      if (!t || !clip(t) || parseFloat(getComputedStyle(t).fontSize) * scale < 11) continue;
      named.push(el.getAttribute("data-state")!);
      if (t.scrollWidth <= t.clientWidth) namedWhole.push(el.getAttribute("data-state")!);
    }
    const labels = [...root.querySelectorAll("[data-edge]")];
    const labelsShown = labels.filter((el) => clip(el)).length;
    return {
      scale,
      minPx,
      smallest,
      overlaps,
      texts: texts.length,
      toolbarBottom: toolbar.bottom,
      canvasTop: canvas.top,
      inView,
      outside,
      cut,
      minimap,
      whole,
      zoomShown: root.querySelector("[data-testid=diagram-zoom]")?.textContent ?? "",
      labelsShown,
      labelsHidden: labels.length - labelsShown,
      textsHidden: texts.filter((el) => !clip(el)).length,
      topLevel: top.map((el) => el.getAttribute("data-state")!),
      named,
      namedWhole,
    };
  });
}

const REPORT = `${SHOTS}/zoom-report.txt`;

function check(r: Reading, where: string) {
  const line = `${where}: zoom ${r.zoomShown} (scale ${r.scale.toFixed(3)}), smallest visible text ${r.minPx.toFixed(1)} px (${r.smallest}), ${r.texts - r.textsHidden} of ${r.texts} texts drawn, top-level names ${r.named.length} of ${r.topLevel.length} drawn (${r.namedWhole.length} whole), edge labels ${r.labelsShown} shown / ${r.labelsHidden} hidden, ${r.overlaps.length} overlapping pair(s)`;
  console.log(line);
  fs.mkdirSync(SHOTS, { recursive: true });
  fs.appendFileSync(REPORT, `${line}\n`);
  // the toolbar shows the zoom the canvas is drawn at
  expect(r.zoomShown, `${where}: the zoom shown`).toBe(`${Math.round(r.scale * 100)}%`);
  expect(r.texts, `${where}: texts were read`).toBeGreaterThan(0);
  expect(r.overlaps, `${where}: labels that intersect`).toEqual([]);
  expect(r.minPx, `${where}: smallest text ${r.smallest}`).toBeGreaterThanOrEqual(11);
  expect(r.toolbarBottom, `${where}: the controls sit above the canvas`).toBeLessThanOrEqual(r.canvasTop + 0.5);
}

/** After Fit, at least this share of the top-level states have their names drawn whole (where the zoom allows it). */
const MIN_WHOLE = 0.75;

/** After Fit: the whole machine in the canvas, no label cut, readable or hidden text, a minimap. */
async function checkFit(page: Page, where: string) {
  await page.getByTestId("diagram-toolbar").getByRole("button", { name: "Fit", exact: true }).click();
  const r = await readDiagram(page);
  check(r, `${where} after Fit`);
  expect(r.outside, `${where}: top-level states outside the canvas after Fit`).toEqual([]);
  expect(r.cut, `${where}: edge labels cut by the canvas edge`).toEqual([]);
  expect(r.minimap, `${where}: a minimap`).toBe(true);
  // semantic zoom keeps the machine readable whole: every top-level state's name is drawn at 11 px
  // or more, and where the zoom lets the overview's chip text (28 px) be 11 px, most of them whole
  // (below, the machine is too large for its chips: a name keeps 11 px and is cut to its chip)
  expect(r.named, `${where}: top-level states with their name drawn at ≥ 11 px`).toEqual(r.topLevel);
  if (r.scale * CHIP_FONT >= 11.05)
    expect(r.namedWhole.length, `${where}: names drawn whole (${r.namedWhole.join(", ")} of ${r.topLevel.join(", ")})`).toBeGreaterThanOrEqual(Math.ceil(MIN_WHOLE * r.topLevel.length));
  return r;
}

const START: Record<string, string> = { "swiss-army": "IDLE", "deep-research": "PLANNING", "domain-agent": "ROUTE", "processing-modes": "RouteRequest", conversation: "INITIAL" };
const SIZES = [
  { width: 1440, height: 900 },
  { width: 1280, height: 720 },
];

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

/** A user workflow of `n` stages: a chain with a rework move back every fourth stage. */
function stages(id: string, n: number): string {
  const name = (i: number) => `STEP_${String(i + 1).padStart(2, "0")}_${["DRAFT", "CHECK", "REVIEW", "PUBLISH"][i % 4]}`;
  const all = Array.from({ length: n }, (_, i) => name(i));
  const moves = all.map((s, i) => `  ${s}: [${[all[i + 1], i % 4 === 3 ? all[i - 2] : undefined].filter(Boolean).join(", ")}]`);
  return [`id: ${id}`, `title: Diagram ${n} stages`, `stages: [${all.join(", ")}]`, `initial_stage: ${all[0]}`, "transitions:", ...moves, ""].join("\n");
}

/** A review of a workflow decided by a person: its page then shows the review-decisions panel and approve rates on its states. */
async function decideOne(request: APIRequestContext, workflow: string) {
  const run = RUNS.find((r) => r.workflow === workflow)!;
  const id = await startRun(request, workflow, run.input, run.settled);
  const review = await pendingReviewFor(request, id);
  const res = await request.post(`/api/reviews/${review}/decision`, { data: { decision: "approve" } });
  expect(res.status(), await res.text()).toBe(200);
}

for (const wf of Object.keys(START)) {
  test(`${wf}: the workflow page's diagram fits whole and stays readable`, async ({ page, request }) => {
    // with decisions on its reviews the page tags those states (approve rates): the view still opens on the whole machine
    if (wf === "swiss-army" || wf === "deep-research") {
      await decideOne(request, wf);
      await page.goto(`/workflows/${wf}`);
      // (among other tags a node may carry, such as an alert's)
      await expect(page.getByTestId("diagram").locator("[data-testid=node-tags]", { hasText: /✓ \d+%/ }).first()).toContainText(/✓ \d+%/);
    }
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.goto(`/workflows/${wf}`);
      const first = await readDiagram(page);
      // a workflow opens on the whole machine
      expect(first.outside, `${wf} ${size.width}: opens whole`).toEqual([]);
      expect(first.inView, `${wf}: the start is in view`).toContain(START[wf]);
      if (size.width === 1440) {
        // and the canvas ends within the first screen: no state of the whole machine below the fold
        const canvas = (await page.getByTestId("diagram").locator(".react-flow").boundingBox())!;
        expect(canvas.y + canvas.height, `${wf}: the canvas within the first screen`).toBeLessThanOrEqual(size.height);
      }
      await checkFit(page, `workflow ${wf} ${size.width}×${size.height}`);
      await shot(page, `workflow-${wf}-${size.width}`);
    }
  });
}

for (const run of RUNS) {
  test(`${run.workflow}: a run page opens on its state and fits whole`, async ({ page, request }) => {
    const id = await startRun(request, run.workflow, run.input, run.settled);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.goto(`/runs/${id}`);
      const r = await readDiagram(page);
      check(r, `run ${run.workflow} ${size.width}×${size.height}`);
      const current = (await page.getByTestId("run-page").getAttribute("data-state"))!.split(",");
      for (const s of current) {
        // the state, or the collapsed group drawn for it, is on screen and whole
        const drawn = r.whole.find((v) => s === v || s.startsWith(`${v}.`));
        expect(drawn, `${run.workflow}: ${s} is whole in view (whole: ${r.whole.join(", ")})`).toBeTruthy();
      }
      await shot(page, `run-${run.workflow}-${size.width}`);
      await checkFit(page, `run ${run.workflow} ${size.width}×${size.height}`);
      await shot(page, `run-${run.workflow}-${size.width}-fit`);
    }
  });
}

for (const n of [6, 30]) {
  test(`a user workflow of ${n} stages fits whole, on its page and on a run's`, async ({ page, request }) => {
    const id = `diagram-${n}-stages`;
    const res = await request.post("/api/workflows", { data: { yaml: stages(id, n) } });
    expectWorkflowSaved(res.status(), await res.text());
    const started = await request.post("/api/runs", { data: { workflow: id, input: {} } });
    expect(started.status(), await started.text()).toBe(201);
    const { id: runId } = (await started.json()) as { id: string };
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.goto(`/workflows/${id}`);
      const r = await checkFit(page, `user workflow ${n} ${size.width}×${size.height}`);
      expect(r.whole.filter((s) => s.startsWith("STEP_"))).toHaveLength(n);
      await shot(page, `user-${n}-${size.width}`);
      await page.goto(`/runs/${runId}`);
      await checkFit(page, `user run ${n} ${size.width}×${size.height}`);
    }
  });
}

test("a run waiting for a person opens with the waiting state whole in view; on a phone the path view shows it first", async ({ page, request }) => {
  for (const [workflow, input, state] of [
    ["domain-agent", { text: "Am I eating enough protein this week?" }, "WAIT_USER"],
    ["swiss-army", { request: "Explain how runs resume after a restart" }, "HUMAN_REVIEW"],
  ] as const) {
    const id = await startRun(request, workflow, input, new RegExp(`^${state}$`));
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`/runs/${id}`);
    const r = await readDiagram(page);
    check(r, `${workflow} waiting`);
    await expect(page.locator(`[data-testid=diagram] [data-state="${state}"]`)).toHaveAttribute("data-status", "waiting");
    expect(r.whole, `${workflow}: ${state} whole in view`).toContain(state);
    await shot(page, `waiting-${workflow}-1440`);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/runs/${id}`);
    const current = page.locator(`[data-testid=path-view] [data-testid=path-current][data-state="${state}"]`);
    await expect(current).toBeVisible();
    const box = (await current.boundingBox())!;
    expectInFirstScreen(box, `${workflow}: the waiting state`);
    // the decision comes first, the path right after it: its first button is in the first screen too
    const primary = page.getByTestId("decision-box").locator("[data-decision]").first();
    await expect(primary).toBeVisible();
    const button = (await primary.boundingBox())!;
    expectInFirstScreen(button, `${workflow}: the primary decision`);
    expect(button.y, `${workflow}: the decision before the path`).toBeLessThan(box.y);
    await expect(page.getByTestId("path-view").getByTestId("path-next").first()).toBeVisible();
    await shot(page, `waiting-${workflow}-390`);
    // the canvas is one tap away
    await page.getByTestId("show-diagram").click();
    await expect(page.locator(`[data-testid=diagram] [data-state="${state}"]`)).toBeVisible();
  }
});

test("a collapsed group opens on click, the view zooms into it, and the breadcrumb leads back", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto("/workflows/deep-research");
  const diagram = page.getByTestId("diagram");
  await expect(diagram).toHaveAttribute("data-ready", "");
  const group = diagram.locator('[data-state="RESEARCHING"][data-collapsed]');
  if ((await group.count()) === 0) await page.getByRole("button", { name: "Collapse groups" }).click();
  await expect(group).toBeVisible();
  const count = Number(await group.getAttribute("data-collapsed"));
  expect(count).toBeGreaterThan(2);
  await expect(diagram.locator('[data-state^="RESEARCHING."]')).toHaveCount(0);
  await group.click();
  await expect(diagram.locator('[data-state^="RESEARCHING."]')).toHaveCount(count);
  await expect(page.getByTestId("diagram-breadcrumb")).toContainText("RESEARCHING");
  // one border: the group's own dashed one, none from React Flow's node box around it
  const box = diagram.locator('.react-flow__node:has(> [data-state="RESEARCHING"])');
  expect(await box.evaluate((el) => getComputedStyle(el).borderTopWidth)).toBe("0px");
  const inGroup = await readDiagram(page);
  check(inGroup, "deep-research with RESEARCHING opened");
  expect(inGroup.whole, "the opened group is whole in view").toContain("RESEARCHING");
  // and fills it: the view zoomed into the group (one side of it spans most of the canvas)
  const [g, c] = [(await diagram.locator('[data-state="RESEARCHING"]').boundingBox())!, (await diagram.locator(".react-flow").boundingBox())!];
  expect(Math.max(g.width / c.width, g.height / c.height), "the opened group fills the view").toBeGreaterThan(0.6);
  for (const inner of await diagram.locator('[data-state^="RESEARCHING."]').all()) expect(inGroup.whole).toContain(await inner.getAttribute("data-state"));
  await page.getByTestId("diagram-breadcrumb").getByRole("button", { name: "Whole machine" }).click();
  const whole = await readDiagram(page);
  expect(whole.outside).toEqual([]);
});

test("labels hidden at the overview show on hover of their edge, at a readable size", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto("/workflows/domain-agent");
  await readDiagram(page);
  const label = page.locator('[data-edge="PLAN->CLARIFY"]');
  await expect(label).toBeHidden();
  await page.locator('.react-flow__edge[data-id="PLAN->CLARIFY"] g[role=img]').focus();
  await expect(label).toBeVisible();
  const px = await label.evaluate((el) => parseFloat(getComputedStyle(el).fontSize) * new DOMMatrixReadOnly(getComputedStyle(el.closest(".react-flow__viewport")!).transform).a);
  expect(px).toBeGreaterThanOrEqual(11);
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
    await shot(page, `dark-${scheme}`);
    const dark = scheme === "dark";
    for (const k of ["canvas", "node", "label"] as const) expect(lum(colours[k]) < 0.35, `${scheme}: ${k} background ${colours[k]}`).toBe(dark);
    for (const k of ["name", "edge"] as const) expect(lum(colours[k]) > 0.5, `${scheme}: ${k} colour ${colours[k]}`).toBe(dark);
  }
});
