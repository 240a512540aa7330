import Link from "@/components/ui/link";
import { notFound } from "next/navigation";
import { workflowLayouts } from "@/lib/graph";
import { deriveGraph, eventLabel } from "@/lib/graph/derive";
import { panelOf } from "@/app/catalog";
import { findWorkflow, isBuiltIn } from "@/lib/machines/registry";
import { flowWarnings } from "@/lib/flows/warnings";
import { flowVersions } from "@/lib/flows/store";
import { stateMetrics, type Verdict } from "@/lib/metrics/state-metrics";
import { workflowUsage } from "@/lib/metrics/model-usage";
import { getRuntime } from "@/lib/runtime";
import { WorkflowDiagram } from "@/components/diagram/workflow-diagram";
import { StateName } from "@/components/ui/state-name";
import { LiveRefresh } from "@/components/ui/live-refresh";
import type { Runtime } from "@/lib/runtime";
import { TableHead } from "@/components/ui/table-head";
import { WebhooksPanel } from "@/components/flows/webhooks-panel";
import { AlertsPanel } from "@/components/alerts/alerts-panel";
import { requireViewer } from "@/app/session";
import { atLeast } from "@/lib/auth/roles";
import { alertsByState } from "@/lib/alerts/rules";
import { moveView } from "@/lib/change/move-view";
import { MovePanel } from "@/components/change/move-panel";
import { FleetDiagram } from "@/components/fleet/fleet-diagram";
import { FleetPanel } from "@/components/fleet/fleet-panel";
import { FleetQuery, fleetOf } from "@/lib/fleet/fleet";
import { ReviewStatsPanel } from "@/components/reviews/stats-panel";
import { approveRateOverlay, reviewStats, StatsQuery } from "@/lib/reviews/stats";
import type { DiagramOverlay } from "@/lib/graph/overlay";

/** A version diff's or a move's overlay with each review state's approve rate added to its tags. */
function withApproveRates(base: DiagramOverlay | undefined, rates: { nodes: NonNullable<DiagramOverlay["nodes"]> }): DiagramOverlay | undefined {
  if (Object.keys(rates.nodes).length === 0) return base;
  const nodes = { ...(base?.nodes ?? {}) };
  for (const [id, tags] of Object.entries(rates.nodes)) nodes[id] = [...(nodes[id] ?? []), ...tags];
  return { ...(base ?? {}), nodes };
}

export const dynamic = "force-dynamic";

const verdictStyle: Record<Verdict, string> = {
  ok: "bg-emerald-50 text-emerald-800",
  warn: "bg-amber-50 text-amber-900",
  alert: "bg-red-100 text-red-800 font-semibold",
  "no-data": "bg-slate-50 dark:bg-slate-800/60 text-slate-600 dark:text-slate-400",
};

export default async function WorkflowPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const who = await requireViewer();
  const canStart = !who || atLeast(who.role, "operator");
  const canEdit = !who || atLeast(who.role, "admin");
  const { id } = await params;
  const sp = await searchParams;
  const def = findWorkflow(id);
  // a user workflow's save-time warnings, against this server's environment now (a secret set since is no longer warned of)
  const warnings = def && !isBuiltIn(def.id) && def.flow ? flowWarnings(def.flow, {}, process.env) : [];
  if (!def) notFound();
  const rt = await getRuntime();
  const [layout, metrics, counts, usage, panel, versions, openAlerts, resolvedAlerts, alertRules] = await Promise.all([
    workflowLayouts(id)!,
    stateMetrics(rt.store, def),
    rt.store.countByStatus(id),
    workflowUsage(rt.store, id),
    panelOf(id) as Promise<React.ComponentType<{ rt: Runtime }> | null>,
    isBuiltIn(id) ? Promise.resolve([]) : flowVersions(rt.db, id),
    rt.alerts.listAlerts({ status: "open", workflow: id }),
    rt.alerts.listAlerts({ status: "resolved", workflow: id, limit: 5 }),
    rt.alerts.listRules(id),
  ]);
  const graph = deriveGraph(def.machine);
  // ?overlay=fleet: the fleet on the diagram (lib/fleet), over a window (?window=1h|24h|7d|all)
  const fleetShown = sp.overlay === "fleet";
  const fleetWindow = FleetQuery.shape.window.safeParse(sp.window).data ?? "24h";
  const fleet = fleetShown ? await fleetOf(rt, id, { window: fleetWindow }) : null;
  const here = (change: Record<string, string | undefined>) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries({ overlay: fleetShown ? "fleet" : undefined, window: sp.window as string | undefined, ...change })) if (v) q.set(k, v);
    return `/workflows/${def.id}${q.size ? `?${q}` : ""}`;
  };
  // people's decisions on its review states, in the window the page asks for (?reviews=1h|24h|7d|all)
  const statsWindow = StatsQuery.safeParse({ window: typeof sp.reviews === "string" ? sp.reviews : undefined }).data?.window ?? "24h";
  const stats = await reviewStats(rt, def, statsWindow, rt.clock.now());
  // changing the agent (guide 19 §5): waiting runs of older versions, a dry run of moving them, a version diff (painted on the diagram)
  const move = versions.length > 1 ? await moveView(rt, def, graph, sp) : null;
  // the workflow's own panel (workflows/<id>/panel.tsx), if it has one
  const Panel = panel;
  const breaches = metrics.filter((m) => m.verdict === "alert");
  return (
    <div className="space-y-4">
      <LiveRefresh events={["run"]} />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <div className="text-xs text-slate-600 dark:text-slate-400">
            <Link href="/workflows" className="hover:underline">Workflows</Link> / <span className="font-mono">{def.id}</span>
          </div>
          <h1 className="text-xl font-semibold tracking-tight">{def.title}</h1>
          <p className="max-w-3xl text-sm text-slate-600 dark:text-slate-400">{def.description}</p>
          <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            <span data-testid="workflow-origin">{def.seed === "user-defined" ? "User-defined" : "Built in"}</span> · {counts.running + counts.waiting} live run(s) ·{" "}
            <a className="text-blue-700 dark:text-blue-400 underline" href={`/api/workflows/${def.id}`}>REST description</a> · export as{" "}
            <a className="text-blue-700 dark:text-blue-400 underline" href={`/api/workflows/${def.id}/export?format=mermaid&download=1`} data-testid="export-mermaid">Mermaid</a> or{" "}
            <a className="text-blue-700 dark:text-blue-400 underline" href={`/api/workflows/${def.id}/export?format=json&download=1`}>JSON</a>
            {versions.length > 0 && <> · version {versions.at(-1)!.version} of {versions.length}</>}
          </p>
        </div>
        <div className="flex gap-2">
          {canEdit && versions.length > 0 && <Link href={`/workflows/new?from=${def.id}`} className="rounded-md bg-white dark:bg-slate-900 px-3 py-1.5 text-sm ring-1 ring-slate-200 dark:ring-slate-700 hover:bg-slate-50 dark:hover:bg-slate-800/60">Edit (new version)</Link>}
          <Link href={`/?workflow=${def.id}`} className="rounded-md bg-white dark:bg-slate-900 px-3 py-1.5 text-sm ring-1 ring-slate-200 dark:ring-slate-700 hover:bg-slate-50 dark:hover:bg-slate-800/60">See its runs</Link>
          {canStart && <Link href={`/?workflow=${encodeURIComponent(def.id)}#new-run`} className="rounded-md bg-blue-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-700" data-testid="run-workflow">
            Run
          </Link>}
        </div>
      </div>

      {warnings.length > 0 && (
        <ul className="space-y-1 rounded-xl border border-amber-200 bg-amber-50 px-4 py-3 text-sm text-amber-900 dark:border-amber-900 dark:bg-amber-950 dark:text-amber-200" data-testid="workflow-warnings">
          {warnings.map((w, i) => (
            <li key={i}>⚠ {w.message}</li>
          ))}
        </ul>
      )}

      {breaches.length > 0 && (
        <div className="rounded-xl border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800" data-testid="metric-alerts">
          <strong>{breaches.length} alert threshold{breaches.length === 1 ? "" : "s"} breached:</strong> {breaches.map((b, i) => (
            <span key={`${b.state}:${b.metric}`}>
              {i > 0 && "; "}
              <StateName id={b.state} states={graph.states} withGroup="always" /> {b.metric.toLowerCase()} ({b.value}, alert {b.alert})
            </span>
          ))}
        </div>
      )}

      {/* one column a phone's width at most: a grid track would otherwise grow to its widest content */}
      <div className="grid grid-cols-[minmax(0,1fr)] gap-4 xl:grid-cols-[minmax(0,1fr)_460px]">
        <div className="min-w-0 self-start overflow-hidden rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 xl:sticky xl:top-20">
          <div className="flex flex-wrap items-center gap-1 border-b border-slate-100 px-3 py-1.5 text-xs dark:border-slate-800" data-testid="overlay-switch">
            <Link href={here({ overlay: undefined, window: undefined })} className={`rounded-md px-2 py-0.5 ${!fleetShown ? "bg-slate-900 text-white dark:bg-slate-200 dark:text-slate-900" : "ring-1 ring-slate-200 dark:ring-slate-700"}`}>Machine</Link>
            <Link href={here({ overlay: "fleet" })} className={`rounded-md px-2 py-0.5 ${fleetShown ? "bg-slate-900 text-white dark:bg-slate-200 dark:text-slate-900" : "ring-1 ring-slate-200 dark:ring-slate-700"}`} data-testid="overlay-fleet">Fleet</Link>
            {fleetShown && (
              <span className="ml-2 flex gap-1" data-testid="fleet-window">
                {(["1h", "24h", "7d", "all"] as const).map((w) => (
                  <Link key={w} href={here({ window: w })} className={`rounded px-1.5 py-0.5 ${fleetWindow === w ? "bg-blue-600 text-white" : "text-blue-700 hover:underline dark:text-blue-400"}`}>{w}</Link>
                ))}
              </span>
            )}
          </div>
          {fleet ? (
            <FleetDiagram layout={layout} fleet={fleet} alerts={alertsByState(openAlerts)} fitScreen className="h-[620px] w-full xl:h-[calc(100vh-8.5rem)] xl:min-h-[480px]" />
          ) : (
            <WorkflowDiagram layout={layout} alerts={alertsByState(openAlerts)} overlay={withApproveRates(move?.overlay, approveRateOverlay(stats))} fitScreen className="h-[620px] w-full xl:h-[calc(100vh-8.5rem)] xl:min-h-[480px]" />
          )}
        </div>
        <div className="min-w-0 space-y-4">
          {fleet && <FleetPanel fleet={fleet} states={graph.states} />}
          {move && <MovePanel v={move.view} />}
          <ReviewStatsPanel stats={stats} states={graph.states} href={(w) => `/workflows/${encodeURIComponent(def.id)}?${new URLSearchParams({ ...Object.fromEntries(Object.entries(sp).filter((e): e is [string, string] => typeof e[1] === "string")), reviews: w })}`} />
          <AlertsPanel
            workflow={def.id}
            open={openAlerts}
            resolved={resolvedAlerts}
            rules={alertRules}
            states={graph.states.filter((s) => s.type === "atomic" || s.human).map((s) => ({ id: s.id, name: s.name, atomic: s.type === "atomic", human: s.human }))}
          />
          {Panel && <Panel rt={rt} />}
          {metrics.length > 0 && (
            <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4">
              <h2 className="mb-2 text-sm font-semibold">Per-state metrics</h2>
              {/* a state's name breaks between its words (never inside one); a table still too wide scrolls in its card */}
              <div tabIndex={0} className="overflow-x-auto">
              <table className="w-full text-xs" data-testid="metrics">
                <TableHead columns={["State", "Metric", "Now", "Target", "Alert"]} />
                <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
                  {metrics.map((m) => (
                    <tr key={`${m.state}:${m.metric}`} data-verdict={m.verdict}>
                      <td className="py-1.5 pr-2 font-mono" title={m.state}><StateName id={m.state} states={graph.states} withGroup="always" /></td>
                      <td className="py-1.5 pr-2">{m.metric}</td>
                      <td className="py-1.5 pr-2">
                        <span className={`rounded px-1.5 py-0.5 ${verdictStyle[m.verdict]}`} title={m.detail}>{m.value}</span>
                        <div className="mt-0.5 text-[11px] text-slate-600 dark:text-slate-400">{m.samples ? `${m.detail} · n=${m.samples}` : m.detail}</div>
                      </td>
                      <td className="py-1.5 pr-2 text-slate-600 dark:text-slate-400">{m.target}</td>
                      <td className="py-1.5 text-slate-600 dark:text-slate-400">{m.alert}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              </div>
            </div>
          )}
          {usage.length > 0 && (
            <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4">
              <h2 className="mb-2 text-sm font-semibold">Model usage by state</h2>
              <table className="w-full table-fixed text-xs" data-testid="model-usage">
                <TableHead columns={["State", { label: "Calls", right: true }, { label: "Tokens in / out", right: true }, { label: "Avg latency", right: true }, { label: "Errors", right: true }]} />
                <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
                  {usage.map((u) => (
                    <tr key={u.state}>
                      {/* nested states: the group's name and the state's, the full path in the tooltip */}
                      <td className="truncate py-1.5 pr-2 font-mono" title={u.state}><StateName id={u.state} states={graph.states} withGroup="always" /></td>
                      <td className="py-1.5 text-right">{u.calls}</td>
                      <td className="py-1.5 text-right font-mono">{u.promptTokens.toLocaleString("en-US")} / {u.completionTokens.toLocaleString("en-US")}</td>
                      <td className="py-1.5 text-right font-mono">{u.avgLatencyMs} ms</td>
                      <td className={`py-1.5 text-right ${u.errors ? "font-semibold text-red-700 dark:text-red-400" : ""}`}>{u.errors}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4">
            <h2 className="mb-2 text-sm font-semibold">States</h2>
            <ul className="space-y-2 text-xs">
              {graph.states.map((s) => (
                <li key={s.id}>
                  <span className="font-mono font-semibold">{s.name}</span>
                  {s.human && <span className="ml-1 rounded bg-emerald-100 px-1 text-emerald-800">human: {s.decisions.join(" / ")}</span>}
                  {s.timeout && <span className="ml-1 rounded bg-amber-100 px-1 text-amber-800 dark:text-amber-300 dark:bg-amber-950">max {s.timeout}</span>}
                  <p className="text-slate-600 dark:text-slate-400">{s.description}</p>
                </li>
              ))}
            </ul>
          </div>
        </div>
      </div>
      <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4">
        <h2 className="mb-2 text-sm font-semibold">Transitions</h2>
        <div tabIndex={0} className="overflow-x-auto">
          <table className="w-full min-w-[640px] text-xs" data-testid="transitions-table">
            <TableHead columns={["From", "To", "Condition", "Event", "Guard / delay"]} />
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {graph.transitions.map((t) => (
                <tr key={t.id}>
                  <td className="py-1 pr-2 font-mono">{t.source}</td>
                  <td className="py-1 pr-2 font-mono">{t.internal ? "(stays)" : t.target}</td>
                  <td className="py-1 pr-2">{t.description}</td>
                  <td className="py-1 pr-2 font-mono text-slate-600 dark:text-slate-400">{eventLabel(t.event)}</td>
                  <td className="py-1 font-mono text-slate-600 dark:text-slate-400">{t.guard ?? ""}{t.delay ? `${t.delay}${t.delayMs ? ` = ${t.delayMs} ms` : ""}` : ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
      <WebhooksPanel workflow={def.id} />
    </div>
  );
}
