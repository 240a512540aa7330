// The five built-in workflows as people see them, at 1440×900 and on a phone (390×844): each
// workflow page (the machine, and the fleet overlay over a few seeded runs, the states they rest
// in given visits of 24 min as a loaded machine's runs make: the overlay's longest labels, see
// fleet-history.ts) and a run page of each. Screenshots go to /tmp/shots-31 to be looked at (not under CI unless E2E_SHOTS=1); what can be checked is checked here: the
// fleet overlay and its panel show the seeded runs, the panels beside the diagram name states as
// people read them (never a raw dotted state path), and on a phone a run's outcome or decision is
// in the first screen. The fixture fails a page that logs a console error.
import type { APIRequestContext, Page } from "@playwright/test";
import { addLongVisits } from "./fleet-history";
import { expect, test } from "./fixtures";
import { pendingReviewFor, shot as shotIn } from "./helpers";

const SHOTS = "/tmp/shots-31";
const shot = (page: Page, name: string, fullPage = false) => shotIn(page, name, { dir: SHOTS, fullPage });

const SIZES = [
  { width: 1440, height: 900, name: "1440" },
  { width: 390, height: 844, name: "390" },
];

/** A run of each built-in and the state it rests in. */
const RUNS: { workflow: string; input: Record<string, unknown>; settled: RegExp; review: boolean }[] = [
  { workflow: "swiss-army", input: { request: "Explain how runs resume after a restart" }, settled: /^HUMAN_REVIEW$/, review: true },
  { workflow: "deep-research", input: { topic: "durable workflow engines and their timers" }, settled: /approval$/, review: true },
  { workflow: "domain-agent", input: { text: "Am I eating enough protein this week?" }, settled: /^(WAIT_USER|COMPLETE)$/, review: false }, // asks when the log has no entries yet; answers when earlier specs logged some
  { workflow: "processing-modes", input: { query: "hello, what can you do?", mode: "CHAT" }, settled: /^Done$/, review: false },
  { workflow: "conversation", input: {}, settled: /^INITIAL$/, review: false },
];

async function runOf(request: APIRequestContext, id: string) {
  return (await (await request.get(`/api/runs/${id}`)).json()) as { state: string[]; stateIds: string[]; status: string };
}

async function startRun(request: APIRequestContext, workflow: string, input: Record<string, unknown>, settled: RegExp): Promise<string> {
  const started = await request.post("/api/runs", { data: { workflow, input } });
  expect(started.status(), await started.text()).toBe(201);
  const { id } = (await started.json()) as { id: string };
  await expect.poll(async () => (await runOf(request, id)).state.join(","), { timeout: 30_000 }).toMatch(settled);
  return id;
}

/** How long the seeded runs had waited where they rest (as on a loaded machine, where earlier specs' runs waited this long): their states' p95, 24 min 11 s, makes the fleet overlay's longest labels. */
const LONG_WAIT_MS = 1_451_000;

type FleetStates = Record<string, { now: { running: number; waiting: number }; entered: number; dwellMs: { p95: number } | null }>;

/** the run each workflow's run page is shown with */
const shown: Record<string, string> = {};

test.describe.configure({ mode: "serial" });

test.beforeAll(async ({ request }) => {
  test.setTimeout(240_000);
  // three runs of each: one left where it rests (shown), one decided by a person where it waits for one, one aborted
  for (const r of RUNS) {
    const [a, b, c] = [await startRun(request, r.workflow, r.input, r.settled), await startRun(request, r.workflow, r.input, r.settled), await startRun(request, r.workflow, r.input, r.settled)];
    shown[r.workflow] = a;
    if (r.review) {
      const review = await pendingReviewFor(request, b);
      const res = await request.post(`/api/reviews/${review}/decision`, { data: { decision: "approve", reviewer: "ana" } });
      expect(res.status(), await res.text()).toBe(200);
    }
    const aborted = await request.post(`/api/runs/${c}/abort`, { data: { reason: "seeded for the screenshots" } });
    // (a run that already finished, as processing-modes' do at once, cannot be aborted: 409)
    expect([200, 409], await aborted.text()).toContain(aborted.status());
    // where runs are now, runs had waited long: more long visits than all the others, so their p95 is the long one
    const states = ((await (await request.get(`/api/workflows/${r.workflow}/fleet?window=24h`)).json()) as { states: FleetStates }).states;
    const resting = Object.entries(states).filter(([, s]) => s.now.running + s.now.waiting > 0);
    await addLongVisits(request, r.workflow, resting.map(([id]) => id), LONG_WAIT_MS, Math.max(...resting.map(([, s]) => s.entered), 1));
    const after = ((await (await request.get(`/api/workflows/${r.workflow}/fleet?window=24h`)).json()) as { states: FleetStates }).states;
    // (a p95 is its bucket's lower edge: up to 2.2 % under the visit's length)
    for (const [id] of resting) expect(after[id]!.dwellMs!.p95, `${r.workflow} ${id}: p95 of the long visits`).toBeGreaterThan(LONG_WAIT_MS * 0.97);
  }
});

/** Texts of the panels beside the diagram that name states: none is a raw dotted state path. */
async function expectNamedStates(page: Page, workflow: string) {
  const ids = (await runOf(page.request, shown[workflow])).stateIds;
  const nested = (await (await page.request.get(`/api/workflows/${workflow}`)).json()) as { states?: { id: string }[] };
  const paths = new Set([...(nested.states ?? []).map((s) => s.id), ...ids].filter((id) => id.includes(".")));
  for (const panel of ["fleet-panel", "review-stats"]) {
    const el = page.getByTestId(panel);
    if ((await el.count()) === 0) continue;
    const text = await el.innerText();
    const raw = [...paths].filter((p) => text.includes(p));
    expect(raw, `${workflow}: ${panel} names states, not paths`).toEqual([]);
  }
}

/**
 * The fleet overlay's drawn tags (and alert badges) that cover another state's box or another
 * drawn tag, as "what ⨯ what" (empty: none). Groups are left out: a state's tag sits inside its group.
 */
async function overlappingTags(page: Page): Promise<string[]> {
  return page.getByTestId("diagram").evaluate((root) => {
    const shown = (el: Element) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
    };
    const nodeOf = (el: Element) => el.closest(".react-flow__node")?.getAttribute("data-id") ?? "?";
    // (data-tag: a tag drawn shortened, or as a count in its chip)
    const tags = [...new Set(root.querySelectorAll("[data-testid=node-tags] [data-tone], [data-testid=node-badges] [data-tone], [data-tag], [data-testid=node-alert]"))].filter(shown).map((el) => ({ node: nodeOf(el), text: el.textContent ?? "", r: el.getBoundingClientRect() }));
    const states = [...root.querySelectorAll(".react-flow__node-state")].map((el) => ({ node: el.getAttribute("data-id") ?? "?", r: el.getBoundingClientRect() }));
    // (a pixel of rounding is no overlap)
    const hit = (a: DOMRect, b: DOMRect) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
    const out: string[] = [];
    tags.forEach((t, i) => {
      for (const s of states) if (s.node !== t.node && hit(t.r, s.r)) out.push(`${t.node} "${t.text}" ⨯ state ${s.node}`);
      for (const u of tags.slice(i + 1)) if (hit(t.r, u.r)) out.push(`${t.node} "${t.text}" ⨯ ${u.node} "${u.text}"`);
    });
    return out;
  });
}

for (const r of RUNS) {
  test(`${r.workflow}: its page, the fleet overlay and a run page, on a wide screen and a phone`, async ({ page, request }) => {
    const fleet = (await (await request.get(`/api/workflows/${r.workflow}/fleet?window=24h`)).json()) as { runs: Record<string, number> };
    const total = Object.values(fleet.runs).reduce((a, b) => a + b, 0);
    expect(total, `${r.workflow}: seeded runs in the fleet`).toBeGreaterThanOrEqual(3);
    for (const size of SIZES) {
      await page.setViewportSize(size);
      await page.goto(`/workflows/${r.workflow}`);
      await expect(page.getByTestId("diagram")).toHaveAttribute("data-ready", "");
      await expectNamedStates(page, r.workflow);
      // where it comes from, in words (not the file name of the document it was written from)
      await expect(page.getByTestId("workflow-origin")).toHaveText("Built in");
      await shot(page, `${r.workflow}-workflow-${size.name}`);
      await shot(page, `${r.workflow}-workflow-${size.name}-full`, true);

      await page.goto(`/workflows/${r.workflow}?overlay=fleet`);
      await expect(page.getByTestId("diagram")).toHaveAttribute("data-ready", "");
      await expect(page.getByTestId("fleet-runs")).toContainText(`now ${fleet.runs.running} running, ${fleet.runs.waiting} waiting`);
      await expect(page.getByTestId("fleet-states").locator("tr[data-fleet-state]").first()).toBeVisible();
      // no tag on a state covers another state or another tag, at the zoom the overlay opens at
      expect(await overlappingTags(page), `${r.workflow} ${size.name}: fleet tags over other states or tags`).toEqual([]);
      await expectNamedStates(page, r.workflow);
      await shot(page, `${r.workflow}-fleet-${size.name}`);
      await shot(page, `${r.workflow}-fleet-${size.name}-full`, true);

      await page.goto(`/runs/${shown[r.workflow]}`);
      await expect(page.getByTestId("run-page")).toBeVisible();
      await shot(page, `${r.workflow}-run-${size.name}`);
      await shot(page, `${r.workflow}-run-${size.name}-full`, true);
    }
  });
}
