// Types of the domain-agent workflow (workflows/domain-agent/guide.md): what each step produces and what the run's
// context holds. The machine is in ./machine.ts, the steps in ./effects.
import type { ActiveDomainContext, Metric, ParsedEntry } from "./domains/types";

export type InputType = "QUERY" | "LOG" | "BOTH";
export type Trigger = "post_query" | "user_correction" | "significant_log";

export interface AgentConfig {
  /** EVALUATE: retries (back to PLAN) before the answer goes out as partial */
  maxEvalRetries: number;
  /** ANALYZE → PLAN re-plans before synthesizing with what there is */
  maxReplans: number;
  /** EXPAND_DOMAIN rounds per run */
  maxExpansions: number;
}

/** A statement about the person that corrects or adds to the global context. */
export interface Correction {
  key: string;
  value: string;
  text: string;
}

/** ROUTE: the input classified, split, and the domains it selects. */
export interface RouteResult {
  inputType: InputType;
  domains: string[];
  confidence: number;
  /** vocabulary hits per domain */
  scores: Record<string, number>;
  /** the parts of the input that are log lines / questions */
  logText: string;
  queryText: string;
  corrections: Correction[];
  /** the person's current day (YYYY-MM-DD) that relative days ("yesterday", "this week") resolve against */
  today: string;
  reason: string;
  adapter: string;
}

export interface Window {
  from: string;
  to: string;
  /** the comparison window before it (same length), for "worse / better than" questions */
  baselineFrom: string;
  baselineTo: string;
  label: string;
}

/** PLAN's decision, one of the four exits in the seed's table. */
export interface QueryPlan {
  decision: "RETRIEVE" | "EXPAND_DOMAIN" | "CLARIFY" | "SYNTHESIZE";
  reason: string;
  /** the domains the question is about (its subject) */
  focus: string[];
  /** the domains whose entries RETRIEVE fetches */
  domains: string[];
  /** how many times the window was doubled (re-plans and retries after a retrieval) */
  widen: number;
  metrics: string[];
  terms: string[];
  window: Window;
  causal: boolean;
  /** EXPAND_DOMAIN: the domain_expansion_request */
  expand?: string[];
  /** CLARIFY: the non-retrievable gap */
  gap?: { need: string | null; question: string };
  round: number;
  adapter: string;
}

export interface RetrievedEntry {
  id: string;
  day: string;
  text: string;
  metrics: Metric[];
  domains: string[];
}

export interface Finding {
  /** a sentence a person can read */
  statement: string;
  metric?: string;
  domain: string;
  current?: number;
  baseline?: number;
  /** relative change current vs baseline, e.g. -0.15 */
  change?: number;
  /** does it look like a problem (by the metric's "better" direction)? */
  concern: boolean;
  /** entry ids (or "profile:<key>") it rests on */
  evidence: string[];
}

export interface Analysis {
  verdict: "SUFFICIENT" | "INSUFFICIENT";
  findings: Finding[];
  gap: { outside_current_expertise: boolean; suspected_domain: string | null; description: string } | null;
  reason: string;
  adapter: string;
}

export interface Clarification {
  question: string;
  need: string | null;
  why: string;
  answer?: string;
  declined?: boolean;
}

export interface Answer {
  text: string;
  citations: string[];
  adapter: string;
  tokens: number;
}

export interface Evaluation {
  verdict: "PASS" | "FAIL";
  score: number;
  reasons: string[];
  adapter: string;
}

export interface Expansion {
  from: "PLAN" | "ANALYZE";
  domains: string[];
  reason: string;
}

export interface StoredLog {
  ids: string[];
  significant: { entryId: string; day: string; text: string; domain: string; reason: string }[];
}

export interface ObserveResult {
  triggers: Trigger[];
  decision: "update" | "skip";
  reason: string;
  changes: { key: string; from: string | null; to: string }[];
  adapter: string;
}

export interface AgentContext {
  config: AgentConfig;
  text: string;
  /** the person's current day (YYYY-MM-DD), fixed when the run starts */
  today: string | null;
  route: RouteResult | null;
  inputType: InputType | null;
  /** loaded domain modules */
  domains: string[];
  domainContext: ActiveDomainContext | null;
  expansions: Expansion[];
  plan: QueryPlan | null;
  plans: number;
  replans: number;
  retrieved: RetrievedEntry[];
  analysis: Analysis | null;
  clarification: Clarification | null;
  answer: Answer | null;
  evaluation: Evaluation | null;
  retryCount: number;
  /** re-plans and retries that had retrieved data: each doubles the window */
  widen: number;
  /** the answer went out after EVALUATE's retry limit (or without enough data) */
  partial: boolean;
  parsed: ParsedEntry[];
  stored: StoredLog | null;
  observation: ObserveResult | null;
  tokens: number;
  /** category: the error's classification when it has one (the model port's NETWORK, LLM, …) */
  /** retry: the state a person's RETRY re-enters (ERROR) */
  error: { state: string; message: string; category?: string; retry?: string } | null;
}
