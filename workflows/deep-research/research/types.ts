// Data structures of deep research (workflows/deep-research/guide.md): the task DAG, the knowledge graph, the source
// registry, and the mission's frontmatter, as task.md prints them.

/** task.md's status values (workflows/deep-research/guide.md): the machine's top-level states but ABORTED. */
export const MISSION_STATUSES = ["PLANNING", "RESEARCHING", "REFLECTING", "SYNTHESIZING", "COMPLETED", "ERROR"] as const;
export type MissionStatus = (typeof MISSION_STATUSES)[number];

/** P*: planning, S*: search, R*: read, C*: conflict resolution */
export type TaskType = "Planning" | "Search" | "Read" | "Conflict";
export type TaskStatus = "PENDING" | "BLOCKED" | "IN_PROGRESS" | "COMPLETED" | "FAILED";

export interface Task {
  id: string;
  type: TaskType;
  description: string;
  status: TaskStatus;
  dependsOn: string[];
  /** the query a search/read sub-agent runs */
  query?: string;
  /** attempts so far (a failed task is retried once with an alternative approach) */
  attempts?: number;
  /** the plan dimension it serves */
  dimension?: string;
  /** critical tasks are escalated to the reviewer when they fail */
  critical?: boolean;
  /** the task this one compensates for */
  compensates?: string;
  error?: string;
}

export type Confidence = "High" | "Medium" | "Low";

export interface Fact {
  /** Fact-NNN */
  id: string;
  statement: string;
  /** S-id of its source */
  source: string;
  confidence: Confidence;
  rawFile: string;
  /** YYYY-MM-DD */
  extracted: string;
  /** the task that found it */
  task: string;
  dimension?: string;
}

export interface Source {
  /** S01, S02 … */
  id: string;
  url: string;
  title: string;
  type: string;
  /** YYYY-MM-DD */
  accessDate: string;
  localPath: string;
}

export interface Plan {
  topic: string;
  dimensions: string[];
  tasks: Task[];
  estimatedIterations: number;
}

export interface MissionMeta {
  mission_id: string;
  created_at: string;
  status: MissionStatus;
  topic: string;
  iteration: number;
  max_iterations: number;
  cost_tracking: { total_tokens: number; tools_used: number };
}
