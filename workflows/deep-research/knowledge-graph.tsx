import type { Fact, Source } from "@/lib/research/types";
import { TableHead } from "@/components/ui/table-head";

const CONF: Record<Fact["confidence"], string> = { High: "bg-emerald-100 text-emerald-800", Medium: "bg-amber-100 text-amber-900", Low: "bg-slate-100 dark:bg-slate-800 text-slate-600 dark:text-slate-400" };

/** Facts linked to their sources: each source with the facts it supports. */
export function KnowledgeGraph({ facts, sources }: { facts: Fact[]; sources: Source[] }) {
  if (facts.length === 0) return <p className="p-4 text-sm text-slate-600 dark:text-slate-400">No facts collected yet.</p>;
  return (
    <div className="space-y-3" data-testid="knowledge-graph">
      {sources.map((s) => {
        const own = facts.filter((f) => f.source === s.id);
        if (!own.length) return null;
        return (
          <div key={s.id} className="rounded-lg border border-slate-200 dark:border-slate-700 p-3">
            <div className="mb-1.5 flex flex-wrap items-baseline gap-2 text-xs">
              <span className="rounded bg-slate-800 px-1.5 font-mono font-semibold text-white">{s.id}</span>
              <span className="font-medium text-slate-800 dark:text-slate-200">{s.title}</span>
              <span className="truncate text-slate-600 dark:text-slate-400">{s.url}</span>
            </div>
            <ul className="space-y-1 text-sm">
              {own.map((f) => (
                <li key={f.id} className="flex gap-2" data-fact={f.id}>
                  <span className="shrink-0 font-mono text-[11px] text-slate-600 dark:text-slate-400">{f.id}</span>
                  <span className="flex-1">{f.statement}</span>
                  <span className={`h-fit shrink-0 rounded px-1.5 text-[11px] font-semibold ${CONF[f.confidence]}`}>{f.confidence}</span>
                </li>
              ))}
            </ul>
          </div>
        );
      })}
    </div>
  );
}

export function SourceRegistry({ sources }: { sources: Source[] }) {
  if (sources.length === 0) return <p className="p-4 text-sm text-slate-600 dark:text-slate-400">No sources registered yet.</p>;
  return (
    <div tabIndex={0} className="overflow-x-auto">
      <table className="w-full min-w-[640px] text-xs" data-testid="source-registry">
        <TableHead columns={["ID", "URL", "Title", "Type", "Access Date", "Local Path"]} />
        <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
          {sources.map((s) => (
            <tr key={s.id}>
              <td className="py-1.5 pr-2 font-mono font-semibold">{s.id}</td>
              <td className="max-w-[240px] truncate py-1.5 pr-2 text-slate-600 dark:text-slate-400" title={s.url}>{s.url}</td>
              <td className="py-1.5 pr-2">{s.title}</td>
              <td className="py-1.5 pr-2">{s.type}</td>
              <td className="py-1.5 pr-2 font-mono">{s.accessDate}</td>
              <td className="py-1.5 font-mono text-slate-600 dark:text-slate-400">{s.localPath}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
