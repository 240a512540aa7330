// The knowledge store as a search adapter: passages of imported documents, ranked by BM25
// (hybrid when embeddings are configured). Always available, offline.
import type { KnowledgeStore } from "../knowledge/documents";
import type { SearchPort, SearchResult } from "./types";

/** The source registry's type column, from the document's file extension. */
function typeOf(source: string): string {
  const ext = /\.([a-z]+)$/i.exec(source.split(/[?#]/)[0] ?? "")?.[1]?.toLowerCase();
  if (ext === "md" || ext === "markdown") return "Markdown";
  if (ext === "html" || ext === "htm" || /^https?:/i.test(source)) return "HTML";
  return "Text";
}

export class KnowledgeSearch implements SearchPort {
  readonly name = "knowledge store";

  constructor(private store: () => Promise<KnowledgeStore>) {}

  async search(query: string, opts: { limit?: number; signal?: AbortSignal } = {}): Promise<SearchResult[]> {
    opts.signal?.throwIfAborted();
    const store = await this.store();
    const { hits } = await store.searchDetailed(query, { limit: opts.limit ?? 6 });
    return hits.map((h) => ({
      url: h.source,
      title: h.heading && h.heading !== h.title ? `${h.title} — ${h.heading}` : h.title,
      type: typeOf(h.source),
      text: h.text,
      score: h.score,
      via: this.name,
    }));
  }
}
