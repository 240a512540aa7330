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
    if (now > 0) tags.push({ label: `${now} now`, tone: "info", title: `${s.now.running} running, ${s.now.waiting} waiting here now` });
    if (s.dwellMs) tags.push({ label: `p95 ${formatDuration(s.dwellMs.p95)}`, tone: "info", title: `time in state: p50 ${formatDuration(s.dwellMs.p50)}, p95 ${formatDuration(s.dwellMs.p95)} (${fleet.window})` });
    if (s.stuck > 0) tags.push({ label: `${s.stuck} stuck`, tone: "bad", title: `${s.stuck} run(s) here longer than 3 × p95, or past the state's timeout` });
    if (s.failedHere > 0) tags.push({ label: `${s.failedHere} failed`, tone: "bad", title: `${s.failedHere} run(s) failed here (${fleet.window})` });
    if (tags.length) nodes[id] = tags;
  }
  return { nodes, traffic: Object.fromEntries(fleet.edges.map((e) => [`${e.from}->${e.to}`, e.count])) };
}
