// Run context and effect shapes of the deep-research workflow (workflows/deep-research/guide.md).
import type { Confidence, Fact, MissionStatus, Plan, Source, Task } from "../../lib/research/types";

export interface ResearchConfig {
  /** safety limit on loop iterations (task dispatches), seed default 50 */
  maxIterations: number;
  /** sub-agents running at once */
  concurrency: number;
  /** a reviewer check-in every N iterations (0 = off) */
  checkinEvery: number;
  /** progress is logged every N iterations */
  progressEvery: number;
  /** attempts per task before it is marked FAILED (the retry uses an alternative approach) */
  maxAttempts: number;
  /** reflection rounds before synthesis is forced */
  maxReflections: number;
}

export interface FoundSource {
  url: string;
  title: string;
  type: string;
  /** the text kept as the source's raw file */
  raw: string;
}

export interface FoundFact {
  statement: string;
  /** index into the result's sources */
  source: number;
  confidence: Confidence;
}

/** What a sub-agent returns for one task. */
export interface TaskResult {
  taskId: string;
  attempt: number;
  approach: string;
  query: string;
  sources: FoundSource[];
  facts: FoundFact[];
  notes: string;
  tokens: number;
  toolsUsed: number;
}

export interface Reflection {
  round: number;
  gaps: { dimension: string; reason: string; query: string }[];
  conflicts: { subject: string; facts: string[]; detail: string }[];
  notes: string;
}

export interface PlanRevision {
  version: number;
  feedback: string;
  /** unified-style diff of the plan as the reviewer changed it */
  diff: string;
  /** the plan of `version`, as it was before this revision (absent in runs stored before it was kept) */
  plan?: Plan | null;
}

export interface ResearchContext {
  config: ResearchConfig;
  topic: string;
  missionId: string;
  createdAt: string;
  status: MissionStatus;
  plan: Plan | null;
  planVersion: number;
  revisions: PlanRevision[];
  /** the reviewer's edited plan and feedback, for the next planning round */
  pendingEdit: { plan: Plan | null; feedback: string } | null;
  tasks: Task[];
  facts: Fact[];
  sources: Source[];
  iteration: number;
  reflections: Reflection[];
  report: string | null;
  reportAdapter: string | null;
  tokens: number;
  toolsUsed: number;
  /** the last consistent DAG, for state-corruption recovery */
  checkpoint: { iteration: number; tasks: Task[] } | null;
  /** how many times the DAG was rolled back to its checkpoint */
  recoveries: number;
  lastCheckin: number;
  escalation: { taskId: string; error: string } | null;
  error: { state: string; message: string; category: string } | null;
}
