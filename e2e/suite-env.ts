// The environment of the suite's servers (the one Playwright starts, and the one each further
// Playwright worker starts for itself in e2e/fixtures.ts): the same settings everywhere.
export const SUITE_ENV: Record<string, string> = {
  NEXT_TELEMETRY_DISABLED: "1",
  HOSTNAME: "127.0.0.1",
  SWITCHYARD_ALERT_INTERVAL_MS: "1000",
  // a loaded CI machine must not turn the diagrams under test into fallback layouts
  SWITCHYARD_LAYOUT_DEADLINE_MS: "60000",
  // nor turn swiss-army's steps into their timeout paths: its context search gives up after 5 s,
  // which the suite's first runs (a fresh store, servers and browsers starting on two cores) can
  // take, and then the answer is built without the context the specs read in it
  SWITCHYARD_PARSE_TIMEOUT_MS: "60000",
  SWITCHYARD_SEARCH_TIMEOUT_MS: "60000",
  SWITCHYARD_UPDATE_TIMEOUT_MS: "60000",
  // the secret e2e/user-workflow-page.spec.ts's support-triage workflow sends to its helpdesk (shown as [secret])
  SWITCHYARD_SECRET_HELPDESK_TOKEN: "e2e-helpdesk-token",
};

/** Playwright workers (E2E_WORKERS, default 2): each beyond the first serves its specs from a server of its own. */
export const WORKERS = Math.max(1, Number(process.env.E2E_WORKERS ?? 2) || 1);

/** the port of worker `index`'s own server (index ≥ 1): E2E_PORT + 60 + index, clear of the specs' ownPort offsets */
export function suitePort(index: number): number {
  return Number(process.env.E2E_PORT ?? 3123) + 60 + index;
}

/**
 * Debian's Chromium as the suite (and bench/timeline-render.ts) launch it. Headless Chromium 156
 * also opens a hidden omnibox popup page (chrome://omnibox-popup.top-chrome) in a renderer of its
 * own for every window, i.e. for every test's context: ~2.8 CPU-s each, measured, against ~0.7
 * for the context without it. e2e/suite-browser.spec.ts fails if such a page comes back.
 */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
  "--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup",
];
