// The browser tab's title for a run's pages: what the run is about and its workflow's title, as
// the runs list names it, rather than a raw id. With accounts on, only for a signed-in person
// (anyone else gets the short id; the page itself sends them to /login).
import { authEnabled } from "@/lib/auth/roles";
import { runName } from "@/lib/machines/run-name";
import { currentUser } from "@/app/session";
import { loadRunPage } from "./load";

/** `suffix` as for loadRunPage (the page's own read is shared); `page` names a sub-page ("Timeline"). */
export async function runTitle(id: string, suffix = "", page?: string): Promise<string> {
  const label = (t: string) => (page ? `${page} · ${t}` : t);
  if (authEnabled() && !(await currentUser())) return label(`Run ${id.slice(0, 8)}`);
  const { run, def } = await loadRunPage(id, suffix);
  const name = runName(def, run, 60);
  return label(name ? `${name} · ${def.title}` : `${def.title} ${run.id.slice(0, 8)}`);
}
