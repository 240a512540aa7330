// What the run page and its timeline page both start from: the run (404 for a bad or unknown
// id), its workflow at the version the run started with, and that machine's diagram layout.
import { notFound } from "next/navigation";
import { getRun } from "@/lib/api/runs";
import { isEngineError } from "@/lib/engine/errors";
import { workflowLayout } from "@/lib/graph";
import { findWorkflow } from "@/lib/machines/registry";
import { getRuntime } from "@/lib/runtime";

export async function loadRunPage(id: string) {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(id)) notFound();
  const rt = await getRuntime();
  let run;
  try {
    run = await getRun(rt, id);
  } catch (e) {
    if (isEngineError(e) && e.status === 404) notFound();
    throw e;
  }
  const def = findWorkflow(run.workflow, run.input);
  const layout = def ? await workflowLayout(def.id, run.input) : null;
  if (!def || !layout) notFound();
  return { rt, run, def, layout };
}
