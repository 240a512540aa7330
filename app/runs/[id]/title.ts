// The browser tab's title for a run's pages: what the run is about and its workflow's title, as
// the runs list names it, rather than a raw id. Only for someone who may see the run (with accounts
// on, a signed-in person); anyone else, or a run that cannot be read, gets the short id.
import { getRun } from "@/lib/api/runs";
import { authEnabled } from "@/lib/auth/roles";
import { findWorkflow } from "@/lib/machines/registry";
import { runName } from "@/lib/machines/run-name";
import { getRuntime } from "@/lib/runtime";
import { currentUser } from "@/app/session";

export async function runTitle(id: string, page?: string): Promise<string> {
  const short = `Run ${id.slice(0, 8)}`;
  const label = (t: string) => (page ? `${page} · ${t}` : t);
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(id)) return label(short);
  try {
    if (authEnabled() && !(await currentUser())) return label(short);
    const run = await getRun(await getRuntime(), id);
    const def = findWorkflow(run.workflow, run.input);
    const name = runName(def, run, 60);
    const workflow = def?.title ?? run.workflow;
    return label(name ? `${name} · ${workflow}` : `${workflow} ${id.slice(0, 8)}`);
  } catch {
    return label(short); // unknown id, a short id the page expands, a database that refuses
  }
}
