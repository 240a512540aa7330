import { listReviews } from "@/lib/api/reviews";
import { shortId } from "@/lib/format";
import { runsByIds } from "@/lib/api/runs";
import { runName } from "@/lib/machines/run-name";
import { OfflineNotice } from "@/components/ui/offline-notice";
import { deriveGraph } from "@/lib/graph/derive";
import { findWorkflow, viewsOf } from "@/lib/machines/registry";
import { getRuntime } from "@/lib/runtime";
import { Inbox, type InboxItem } from "@/components/review/inbox";
import { parseFilter } from "@/components/review/inbox-filter";
import { WorkflowViewsProvider, type WorkflowViews } from "@/components/runs/workflow-views";
import { LiveRefresh } from "@/components/ui/live-refresh";
import { currentUser, requireViewer } from "@/app/session";
import { groupsOfUser } from "@/lib/auth/groups";

export const dynamic = "force-dynamic";
export const metadata = { title: "Review queue" };

export default async function ReviewQueuePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requireViewer();
  const filter = parseFilter(await searchParams);
  const who = await currentUser();
  const rt = await getRuntime();
  // with accounts on, reviews assigned to groups the person is not in are not offered
  const reviews = await listReviews(rt, { status: "pending", limit: 500 }, who);
  // what each run is about: every run in one query
  const runs = await runsByIds(rt, reviews.map((r) => r.runId));
  const names = new Map(runs.map((run) => [run.id, runName(findWorkflow(run.workflow, run.input), run)]));
  // each pending review's workflow's views (its review payloads)
  const workflows = [...new Set(reviews.map((r) => r.workflow))];
  const views = Object.fromEntries(await Promise.all(workflows.map(async (w) => [w, (await viewsOf(w)) as WorkflowViews | null] as const)));
  const items: InboxItem[] = reviews.map((r) => {
    const def = findWorkflow(r.workflow);
    const state = def ? deriveGraph(def.machine).states.find((s) => s.id === r.state) : undefined;
    return {
      review: { ...r, payload: r.payload as Record<string, unknown> },
      decisions: state?.decisions,
      workflowTitle: def?.title ?? r.workflow,
      name: names.get(r.runId) ?? `run ${shortId(r.runId)}`,
    };
  });
  return (
    <div className="space-y-3">
      <LiveRefresh />
      <h1 className="text-xl font-semibold tracking-tight">Review queue</h1>
      {rt.model.offline && reviews.length > 0 && <OfflineNotice />}
      <WorkflowViewsProvider views={views}>
        <Inbox items={items} now={rt.clock.now()} initialFilter={filter} me={who ? [who.name, ...(await groupsOfUser(rt.db, who.userId))] : null} />
      </WorkflowViewsProvider>
    </div>
  );
}
