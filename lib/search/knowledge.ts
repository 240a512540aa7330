// The knowledge store as a search adapter: passages of imported documents, ranked by BM25
// (hybrid when embeddings are configured). Always available, offline.
import { hitTitle, type DocType, type KnowledgeStore } from "../knowledge/documents";
import type { SearchPort, SearchResult } from "./types";

/** The source registry's type column for a document type. */
const TYPE_NAMES: Record<DocType, string> = { markdown: "Markdown", html: "HTML", text: "Text" };

export class KnowledgeSearch implements SearchPort {
  readonly name = "knowledge store";

  constructor(private store: () => Promise<KnowledgeStore>) {}

  async search(query: string, opts: { limit?: number; signal?: AbortSignal } = {}): Promise<SearchResult[]> {
    opts.signal?.throwIfAborted();
    const store = await this.store();
    const hits = await store.search(query, { limit: opts.limit ?? 6 });
    return hits.map((h) => ({ url: h.source, title: hitTitle(h), type: TYPE_NAMES[h.type], text: h.text, score: h.score, via: this.name }));
  }
}
