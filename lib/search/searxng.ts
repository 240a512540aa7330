// A web search adapter for a SearxNG-style JSON endpoint (`GET {base}/search?q=…&format=json`).
// Configured with SWITCHYARD_SEARCH_URL; used by research sub-agents when present.
import { z } from "zod";
import { ModelError } from "../llm/errors";
import type { SearchPort, SearchResult } from "./types";

const Reply = z.object({
  results: z.array(z.object({ url: z.string(), title: z.string().default(""), content: z.string().default(""), score: z.number().optional(), engine: z.string().optional() }).passthrough()),
});

export class SearxngSearch implements SearchPort {
  readonly name = "web (searxng)";
  constructor(
    private base: string,
    private timeoutMs = 10_000,
  ) {}

  async search(query: string, opts: { limit?: number; signal?: AbortSignal } = {}): Promise<SearchResult[]> {
    const url = new URL("search", this.base.endsWith("/") ? this.base : `${this.base}/`);
    url.searchParams.set("q", query);
    url.searchParams.set("format", "json");
    const signal = opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(this.timeoutMs)]) : AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    try {
      res = await fetch(url, { signal, headers: { accept: "application/json" } });
    } catch (e) {
      const timeout = (e as Error).name === "TimeoutError";
      throw new ModelError(`web search ${timeout ? "timed out" : "unreachable"}: ${(e as Error).message}`, { category: timeout ? "LLM" : "NETWORK", code: timeout ? "timeout" : "unreachable", endpoint: url.host });
    }
    if (!res.ok) throw new ModelError(`web search answered ${res.status}`, { category: res.status >= 500 || res.status === 429 ? "LLM" : "BUSINESS", code: `http_${res.status}`, status: res.status, endpoint: url.host });
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      throw new ModelError("web search returned malformed JSON", { category: "LLM", code: "bad_response", endpoint: url.host });
    }
    const parsed = Reply.safeParse(body);
    if (!parsed.success) throw new ModelError("web search reply has no results list", { category: "LLM", code: "bad_response", endpoint: url.host });
    const n = parsed.data.results.length;
    return parsed.data.results.slice(0, opts.limit ?? 8).map((r, i) => ({
      url: r.url,
      title: r.title || r.url,
      type: /\.pdf($|\?)/i.test(r.url) ? "PDF" : "HTML",
      text: r.content,
      score: r.score ?? (n - i) / n,
      via: this.name,
    }));
  }
}
