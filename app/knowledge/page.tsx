import Link from "@/components/ui/link";
import { formatTime } from "@/lib/format";
import type { Hit, SearchOutcome } from "@/lib/knowledge/documents";
import { knowledgeStore } from "@/lib/runtime";
import { KbDeleteButton } from "@/components/knowledge/kb-delete-button";
import { KbHighlight } from "@/components/knowledge/kb-highlight";
import { KbImport } from "@/components/knowledge/kb-import";
import { TableHead } from "@/components/ui/table-head";
import { requireViewer } from "@/app/session";

export const dynamic = "force-dynamic";
export const metadata = { title: "Knowledge" };

type Search = { q?: string; page?: string };

const PAGE_SIZE = 25;

function href(q: string, page: number) {
  const p = new URLSearchParams();
  if (q) p.set("q", q);
  if (page > 1) p.set("page", String(page));
  const s = p.toString();
  return s ? `/knowledge?${s}` : "/knowledge";
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function MethodBadge({ method }: { method: SearchOutcome["method"] }) {
  return (
    <span
      className={`rounded-full px-2 py-0.5 text-[11px] font-semibold ${method === "hybrid" ? "bg-violet-100 text-violet-800" : "bg-slate-100 dark:bg-slate-800 text-slate-700"}`}
      title={method === "hybrid" ? "BM25 and vector similarity, merged by reciprocal rank fusion" : "BM25 keyword ranking"}
      data-testid="kb-method"
    >
      {method}
    </span>
  );
}

function HitCard({ hit, rank }: { hit: Hit; rank: number }) {
  const pct = Math.round(hit.score * 100);
  return (
    <li className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4" data-testid="kb-hit" data-document={hit.documentId}>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <div className="text-xs text-slate-600 dark:text-slate-400">#{rank}</div>
          <h3 className="truncate text-sm font-semibold text-slate-900 dark:text-slate-100" title={hit.source}>{hit.title}</h3>
          {hit.heading && hit.heading !== hit.title && <p className="truncate text-xs text-slate-600 dark:text-slate-400">§ {hit.heading}</p>}
        </div>
        <div className="flex shrink-0 items-center gap-2">
          <MethodBadge method={hit.method} />
          <div className="w-28" title={`score ${hit.score.toFixed(3)} · BM25 ${hit.bm25Score.toFixed(2)}${hit.vectorScore !== undefined ? ` · cosine ${hit.vectorScore.toFixed(3)}` : ""}`}>
            <div className="flex items-baseline justify-between text-[11px] text-slate-600 dark:text-slate-400">
              <span>score</span>
              <span className="font-mono font-semibold text-slate-800 dark:text-slate-200" data-testid="kb-score">{hit.score.toFixed(2)}</span>
            </div>
            <div className="mt-0.5 h-1.5 overflow-hidden rounded-full bg-slate-100 dark:bg-slate-800">
              <div className={`h-full rounded-full ${pct >= 60 ? "bg-emerald-500" : pct >= 35 ? "bg-blue-500" : "bg-slate-400"}`} style={{ width: `${Math.max(3, pct)}%` }} />
            </div>
          </div>
        </div>
      </div>
      <KbHighlight text={hit.text} terms={hit.terms} className="mt-3" />
      <div className="mt-2 flex flex-wrap gap-x-3 gap-y-1 text-[11px] text-slate-600 dark:text-slate-400">
        <span className="truncate font-mono" title={hit.source}>{hit.source}</span>
        <span>chunk {hit.ord + 1}</span>
        {hit.terms.length > 0 && <span>matched: {hit.terms.join(", ")}</span>}
        {hit.vectorScore !== undefined && <span>cosine {hit.vectorScore.toFixed(3)}</span>}
      </div>
    </li>
  );
}

export default async function KnowledgePage({ searchParams }: { searchParams: Promise<Search> }) {
  await requireViewer();
  const sp = await searchParams;
  const q = (typeof sp.q === "string" ? sp.q : "").slice(0, 1_000).trim();
  const page = Math.max(1, Math.floor(Number(sp.page)) || 1);
  const store = await knowledgeStore();
  const [search, list, stats] = await Promise.all([
    q ? store.searchDetailed(q, { limit: 10 }) : Promise.resolve(null),
    store.list({ limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
    store.stats(),
  ]);

  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_360px]">
      <section className="min-w-0 space-y-4">
        <div>
          <h1 className="text-xl font-semibold tracking-tight">Knowledge</h1>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Documents the workflows search: {stats.documents} document{stats.documents === 1 ? "" : "s"}, {stats.chunks} chunk{stats.chunks === 1 ? "" : "s"}
            {stats.embeddedChunks > 0 ? `, ${stats.embeddedChunks} with embeddings` : ""}.
          </p>
        </div>

        <form method="get" action="/knowledge" className="flex gap-2" role="search" data-testid="kb-search">
          <input
            type="search"
            name="q"
            defaultValue={q}
            maxLength={1_000}
            placeholder="Search the knowledge store, e.g. “review decision 409”"
            aria-label="Search the knowledge store"
            className="h-10 min-w-0 flex-1 rounded-lg border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-3 text-sm shadow-sm focus:border-blue-500 focus:outline-none focus:ring-2 focus:ring-blue-500/20"
          />
          <button type="submit" className="h-10 rounded-lg bg-slate-900 px-4 text-sm font-medium text-white dark:bg-slate-200 dark:text-slate-900 hover:bg-slate-700">Search</button>
          {q && (
            <Link href="/knowledge" className="flex h-10 items-center rounded-lg px-3 text-sm text-slate-600 dark:text-slate-400 hover:bg-slate-100 dark:hover:bg-slate-800">Clear</Link>
          )}
        </form>

        {search && (
          <div className="space-y-3" data-testid="kb-results">
            <div className="flex flex-wrap items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
              <span>
                {search.hits.length === 0 ? "No passage matches" : `${search.hits.length} passage${search.hits.length === 1 ? "" : "s"}`} for “{search.query}”
              </span>
              <span>·</span>
              <MethodBadge method={search.method} />
              <span>·</span>
              <span>{search.tookMs.toFixed(1)} ms</span>
              {search.embedError && <span className="text-amber-700">vector search unavailable ({search.embedError}): BM25 only</span>}
            </div>
            {search.hits.length === 0 ? (
              <p className="rounded-xl border border-dashed border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-4 py-8 text-center text-sm text-slate-600 dark:text-slate-400">
                Nothing found. Try fewer or more distinctive words; very common words are ignored.
              </p>
            ) : (
              <ol className="space-y-3">
                {search.hits.map((h, i) => (
                  <HitCard key={h.chunkId} hit={h} rank={i + 1} />
                ))}
              </ol>
            )}
          </div>
        )}

        <div tabIndex={0} className="overflow-x-auto rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900">
          <div className="flex items-center justify-between border-b border-slate-200 dark:border-slate-700 px-4 py-2">
            <h2 className="text-sm font-semibold">Documents</h2>
            <span className="text-xs text-slate-600 dark:text-slate-400">{list.total} in all, newest first</span>
          </div>
          <table className="w-full min-w-[680px] text-sm" data-testid="kb-documents">
            <TableHead variant="boxed" columns={["Title", "Type", "Source", { label: "Chunks", right: true }, "Imported", ""]} />
            <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
              {list.documents.length === 0 && (
                <tr>
                  <td colSpan={6} className="px-3 py-10 text-center text-slate-600 dark:text-slate-400">No documents yet: import some with the card on the right.</td>
                </tr>
              )}
              {list.documents.map((d) => (
                <tr key={d.id} className="align-top hover:bg-slate-50 dark:hover:bg-slate-800/60" data-document={d.id}>
                  <td className="max-w-[280px] px-3 py-2">
                    <div className="truncate font-medium text-slate-900 dark:text-slate-100" title={d.title}>{d.title}</div>
                    <div className="text-[11px] text-slate-600 dark:text-slate-400">{formatBytes(d.bytes)}</div>
                  </td>
                  <td className="px-3 py-2">
                    <span className="rounded bg-slate-100 dark:bg-slate-800 px-1.5 py-0.5 font-mono text-[11px] text-slate-600 dark:text-slate-400">{d.type}</span>
                  </td>
                  <td className="max-w-[220px] truncate px-3 py-2 font-mono text-xs text-slate-600 dark:text-slate-400" title={d.source}>{d.source}</td>
                  <td className="px-3 py-2 text-right font-mono text-xs text-slate-700 dark:text-slate-300">{d.chunkCount}</td>
                  <td className="whitespace-nowrap px-3 py-2 text-xs text-slate-600 dark:text-slate-400">{formatTime(d.importedAt)}</td>
                  <td className="px-3 py-2 text-right">
                    <KbDeleteButton id={d.id} title={d.title} chunks={d.chunkCount} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {list.total > PAGE_SIZE && (
            <div className="flex items-center justify-between border-t border-slate-100 dark:border-slate-800 px-4 py-2 text-sm text-slate-600 dark:text-slate-400">
              <span>
                {(page - 1) * PAGE_SIZE + 1}–{Math.min(list.total, page * PAGE_SIZE)} of {list.total}
              </span>
              <div className="flex gap-2">
                {page > 1 && <Link className="rounded-md bg-white dark:bg-slate-900 px-3 py-1 ring-1 ring-slate-200 dark:ring-slate-700" href={href(q, page - 1)}>Previous</Link>}
                {page * PAGE_SIZE < list.total && <Link className="rounded-md bg-white dark:bg-slate-900 px-3 py-1 ring-1 ring-slate-200 dark:ring-slate-700" href={href(q, page + 1)}>Next</Link>}
              </div>
            </div>
          )}
        </div>
      </section>

      <aside className="space-y-4">
        <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4">
          <h2 className="mb-3 text-sm font-semibold">Import</h2>
          <KbImport />
        </div>
        <div className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4 text-xs text-slate-600 dark:text-slate-400">
          <h2 className="mb-2 text-sm font-semibold text-slate-800 dark:text-slate-200">How search works</h2>
          <p>
            Documents are cut into passages of about 600–900 characters that keep their nearest heading. Passages are ranked with BM25 over text, heading and title
            {stats.embeddedChunks > 0 ? ", merged with vector similarity (hybrid)" : "; with an embeddings endpoint configured, vector similarity joins in (hybrid)"}. The score is relative to
            the best hit and the share of your words a passage contains.
          </p>
          <p className="mt-2">
            Also available as <code className="font-mono">GET /api/knowledge?q=…</code> and <code className="font-mono">npm run import -- &lt;folder&gt;</code>.
          </p>
        </div>
      </aside>
    </div>
  );
}
