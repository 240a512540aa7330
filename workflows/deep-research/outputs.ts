// What each deep-research effect must return, as zod schemas: the output an external worker gives
// for an effect sent out by SWITCHYARD_EXTERNAL_EFFECTS is parsed with these before the machine sees
// it (builtIn() checks at compile time that each schema's type is the effect's output type).
// Limits keep a hostile worker from filling a run's context; the DAG rules apply to plans.
import { z } from "zod";
import { validate } from "./research/dag";
import type { Task } from "./research/types";

const text = (max: number) => z.string().max(max);
const confidence = z.enum(["High", "Medium", "Low"]);
const tokens = z.number().int().min(0).max(100_000_000);

const task = z.object({
  id: z.string().regex(/^[PSRC]\d+$/, "task ids are P/S/R/C followed by a number"),
  type: z.enum(["Planning", "Search", "Read", "Conflict"]),
  description: z.string().min(1).max(500),
  status: z.enum(["PENDING", "BLOCKED", "IN_PROGRESS", "COMPLETED", "FAILED"]),
  dependsOn: z.array(z.string().max(20)).max(60),
  query: text(300).optional(),
  attempts: z.number().int().min(0).max(100).optional(),
  dimension: text(200).optional(),
  critical: z.boolean().optional(),
  compensates: text(20).optional(),
  error: text(2_000).optional(),
});

const plan = z
  .object({
    topic: z.string().min(1).max(500),
    dimensions: z.array(z.string().min(1).max(200)).min(1).max(12),
    tasks: z.array(task).min(1).max(60),
    estimatedIterations: z.number().int().min(1).max(500),
  })
  .superRefine((p, ctx) => {
    for (const problem of validate(p.tasks as Task[])) ctx.addIssue({ code: "custom", path: ["tasks"], message: problem });
  });

/** the effects' outputs, by effect name */
export const researchOutputs = {
  /** the planner: a plan (a DAG of P/S/R/C tasks) and the mission's id */
  plan: z.object({ plan, missionId: z.string().min(1).max(40), rationale: text(2_000), adapter: text(100), tokens }),
  /** one sub-agent call: what it found for task `taskId` (facts point into `sources` by index) */
  researchTask: z.object({
    taskId: z.string().regex(/^[PSRC]\d+$/, "taskId is the id of the task the sub-agent was given"),
    attempt: z.number().int().min(1).max(100),
    approach: text(200),
    query: text(1_000),
    sources: z.array(z.object({ url: text(2_000), title: text(500), type: text(50), raw: text(200_000) })).max(50),
    facts: z.array(z.object({ statement: z.string().min(1).max(2_000), source: z.number().int().min(0), confidence })).max(100),
    notes: text(10_000),
    tokens,
    toolsUsed: z.number().int().min(0).max(10_000),
  }),
  /** the reflector: gaps (each becomes new tasks), conflicts (each a C task) */
  reflect: z.object({
    round: z.number().int().min(0).max(1_000),
    gaps: z.array(z.object({ dimension: text(200), reason: text(1_000), query: text(300) })).max(20),
    conflicts: z.array(z.object({ subject: text(500), facts: z.array(text(20)).max(20), detail: text(2_000) })).max(20),
    notes: text(10_000),
  }),
  /** the synthesizer: report.md's markdown */
  synthesize: z.object({ report: z.string().min(1).max(1_000_000), adapter: text(100), tokens }),
};
