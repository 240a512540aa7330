import Link from "@/components/ui/link";
import { connection } from "next/server";
import type { AlertView } from "@/lib/alerts/rules";
import { getRuntime } from "@/lib/runtime";

/** How many open alerts the banner names; the rest are counted. */
const SHOWN = 3;

/** A strip under the navigation on every page while alerts are open (lib/alerts), linking to each workflow's alerts. */
export async function AlertBanner() {
  await connection(); // rendered per request (never at build time: it reads the database)
  let open: AlertView[] = [];
  let total = 0;
  try {
    const rt = await getRuntime();
    [open, total] = await Promise.all([rt.alerts.listAlerts({ status: "open", limit: SHOWN }), rt.alerts.countOpen()]);
  } catch {
    return null; // the page itself reports storage problems
  }
  if (total === 0) return null;
  return (
    <div className="border-b border-red-200 bg-red-50 dark:border-red-900 dark:bg-red-950" role="status" data-testid="alert-banner">
      {/* on a phone one line (the count and the first alert): the first screen is for the page's own content (a run's decision) */}
      <div className="mx-auto flex w-full max-w-[1440px] items-baseline gap-x-4 gap-y-1 px-4 py-2 text-sm text-red-900 sm:flex-wrap sm:px-6 dark:text-red-100">
        <strong className="shrink-0 font-semibold">
          <span aria-hidden>⚠ </span>
          {total} alert{total === 1 ? "" : "s"} open
        </strong>
        {open.map((a, i) => (
          <Link key={a.id} href={`/workflows/${encodeURIComponent(a.workflow)}#alerts`} className={`min-w-0 max-w-full truncate hover:underline ${i > 0 ? "max-sm:hidden" : ""}`} title={a.message}>
            <span className="font-mono text-xs">{a.workflow}</span> · <span className="font-mono text-xs font-semibold">{a.stateName}</span> — <span className="text-red-800 dark:text-red-200">{a.message}</span>
          </Link>
        ))}
        {total > open.length && <span className="text-xs text-red-700 max-sm:hidden dark:text-red-300">and {total - open.length} more</span>}
      </div>
    </div>
  );
}
