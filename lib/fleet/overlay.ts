// The fleet painted on a workflow's diagram (the workflow page's ?overlay=fleet): on each state the
// runs there now and its p95 dwell, stuck runs and failures as red tags; edges by traffic. Pure.
import type { DiagramOverlay } from "../graph/overlay";
import { formatDuration } from "../format";
import type { Fleet } from "./fleet";

export function fleetOverlay(fleet: Fleet): DiagramOverlay {
  const nodes: NonNullable<DiagramOverlay["nodes"]> = {};
  for (const [id, s] of Object.entries(fleet.states)) {
    const now = s.now.running + s.now.waiting;
    const tags: NonNullable<DiagramOverlay["nodes"]>[string] = [];
    // two tags at most (a node is narrow): what is there, and what is wrong there
    const info = [now > 0 ? `${now} now` : "", s.dwellMs ? `p95 ${formatDuration(s.dwellMs.p95)}` : ""].filter(Boolean);
    if (info.length) {
      tags.push({
        label: info.join(" · "),
        // where there is no room for it all: the runs there now (the p95 is in the tooltip and the panel)
        ...(now > 0 ? { short: `${now} now`, mini: String(now) } : {}),
        tone: "info",
        title: [`${s.now.running} running, ${s.now.waiting} waiting here now`, s.dwellMs ? `time in state: p50 ${formatDuration(s.dwellMs.p50)}, p95 ${formatDuration(s.dwellMs.p95)} (${fleet.window})` : ""].filter(Boolean).join("\n"),
      });
    }
    const bad = [s.stuck > 0 ? `${s.stuck} stuck` : "", s.failedHere > 0 ? `${s.failedHere} failed` : ""].filter(Boolean);
    if (bad.length) {
      tags.push({
        label: bad.join(" · "),
        short: bad[0],
        mini: String(s.stuck + s.failedHere),
        tone: "bad",
        title: [s.stuck > 0 ? `${s.stuck} run(s) here longer than 3 × p95, or past the state's timeout` : "", s.failedHere > 0 ? `${s.failedHere} run(s) failed here (${fleet.window})` : ""].filter(Boolean).join("\n"),
      });
    }
    if (tags.length) nodes[id] = tags;
  }
  return { nodes, traffic: Object.fromEntries(fleet.edges.map((e) => [`${e.from}->${e.to}`, e.count])) };
}
