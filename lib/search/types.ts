// Search results as every search adapter returns them.

export interface SearchResult {
  url: string;
  title: string;
  /** HTML, Report, Paper, Markdown, Text … */
  type: string;
  text: string;
  score: number;
  /** which adapter found it: "knowledge store" or "web (searxng)" */
  via: string;
}

export interface SearchPort {
  readonly name: string;
  search(query: string, opts?: { limit?: number; signal?: AbortSignal }): Promise<SearchResult[]>;
}
