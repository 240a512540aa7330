// Domain modules of the domain-agent workflow (workflows/domain-agent/guide.md): each module brings a vocabulary
// (what selects it), expertise (what the agent knows there), the metrics a log line can carry,
// retrieval hints, and its rule for a significant log. Add one: see domains/README.md.

/** One measurable thing a log line can carry, in its canonical unit. */
export interface MetricSpec {
  /** canonical name, snake_case (e.g. "resting_hr") */
  name: string;
  label: string;
  /** canonical unit ("bpm", "h", "km", "/10" …) */
  unit: string;
  /** which direction is good, for analysis wording ("higher" | "lower" | "neutral") */
  better: "higher" | "lower" | "neutral";
}

/** A metric value found in a log line. */
export interface Metric {
  name: string;
  value: number;
  unit: string;
  domain: string;
}

/** One structured log entry, as PARSE extracts it (log flow: workflows/domain-agent/guide.md). */
export interface ParsedEntry {
  /** the day the entry is about, YYYY-MM-DD */
  day: string;
  /** the free text of the entry (the line as written) */
  text: string;
  metrics: Metric[];
  /** domain tags: from the metrics and the domains' vocabularies */
  domains: string[];
}

/** A stored log entry. */
export interface LogEntry extends ParsedEntry {
  id: string;
  runId: string | null;
  /** why the observer was triggered by it, when it was significant */
  significant: string | null;
  createdAt: string;
}

/** A question a domain cannot answer from the log: it needs a fact only the person knows. */
export interface DomainNeed {
  /** the profile key that answers it (e.g. "body_weight_kg") */
  key: string;
  /** the question applies when the query matches */
  when: RegExp;
  /** what to ask the person */
  question: string;
}

export interface DomainModule {
  id: string;
  title: string;
  summary: string;
  /** words (stemmed when matched) that select this domain in ROUTE */
  vocabulary: string[];
  /** what the agent knows in this domain: rules of thumb it applies when analyzing */
  expertise: string[];
  metrics: MetricSpec[];
  retrieval: {
    /** how far back a query looks by default */
    lookbackDays: number;
    /** domains that usually explain this one ("why" questions pull them in: proactive expansion) */
    related: string[];
  };
  /** facts only the person can give (non-retrievable gaps → CLARIFY) */
  needs: DomainNeed[];
  /** why an entry is significant in this domain (it triggers the observer), or null */
  significant(entry: ParsedEntry, profile: Record<string, string>): string | null;
}

/** The context the selected domains assemble (BUILD_CONTEXT's output). */
export interface ActiveDomainContext {
  domains: string[];
  vocabulary: string[];
  expertise: { domain: string; lines: string[] }[];
  retrievalHints: { metrics: string[]; lookbackDays: number; related: string[] };
  /** the global context (profile) at build time */
  profile: Record<string, string>;
  builtAt: number;
}
