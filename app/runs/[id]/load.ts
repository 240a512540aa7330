// What the run page and its timeline page both start from: the run (404 for a bad or unknown
// id), its workflow at the version the run started with, and that machine's diagram layout.
import { notFound, redirect } from "next/navigation";
import { cache } from "react";
import { getRun, runIdByPrefix, runTransitions } from "@/lib/api/runs";
import { isEngineError } from "@/lib/engine/errors";
import { workflowLayouts } from "@/lib/graph";
import { historyStatus } from "@/lib/graph/status";
import { findWorkflow } from "@/lib/machines/registry";
import { getRuntime } from "@/lib/runtime";

/**
 * `suffix`: the rest of the path to keep when a short id is expanded ("/timeline"). Once per
 * request: the tab's title (generateMetadata) and the page share one read.
 */
export const loadRunPage = cache(async (id: string, suffix = "") => {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(id)) notFound();
  const rt = await getRuntime();
  let run;
  try {
    run = await getRun(rt, id);
  } catch (e) {
    if (!(isEngineError(e) && e.status === 404)) throw e;
    // a short id (the first 8 characters, as lists show it) opens the run when it names one run
    const full = await runIdByPrefix(rt, id.toLowerCase());
    if (full) redirect(`/runs/${full}${suffix}`);
    notFound();
  }
  const def = findWorkflow(run.workflow, run.input);
  // the states the run is in and went through: the diagram keeps their groups open, laid out ahead here
  const visited = def ? historyStatus(await runTransitions(rt, run.id, 0, 10_000)).visited : [];
  const layout = def ? await workflowLayouts(def.id, run.input, [...run.stateIds, ...visited]) : null;
  if (!def || !layout) notFound();
  return { rt, run, def, layout };
});
