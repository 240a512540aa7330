// A workflow's own services: long-lived objects a built-in workflow brings (builtIn({ services }))
// instead of a port in the core (the Context Manager, for one). The runtime creates each
// workflow's services once per process, from the core's ports, runs their lifecycle (start at
// boot, chores on an interval or, in cluster mode, once per window across the workers, idle at
// shutdown), hands them to that workflow's effects, and keeps them under the workflow's id for
// its panels, pages and actions (`rt.services.of(id)`).
import type { Db } from "../db/client";
import type { Clock } from "../engine/clock";
import type { ModelPort } from "../llm/types";

/** What the runtime gives a workflow's services factory. */
export interface ServicePorts {
  db: Db;
  clock: Clock;
  /** the database's dialect */
  dialect: "sqlite" | "postgres";
  /** the model port (with usage recording) */
  model: () => ModelPort;
  env: NodeJS.ProcessEnv;
}

/** Work a service wants done now and then: `run` every `everyMs` (one process at a time in cluster mode). */
export interface ServiceChore {
  everyMs: number;
  run(): Promise<unknown>;
}

/** The lifecycle a workflow's services may have (every part optional). */
export interface WorkflowService {
  /** at boot, in every process, before runs resume (e.g. seed what a first start needs) */
  start?(): Promise<unknown>;
  /** chores by name: on an interval in this process, or in cluster mode as queue chores one worker runs per window */
  chores?: Record<string, ServiceChore>;
  /** entries added to GET /api/health's body for a signed-in caller */
  health?(): Promise<Record<string, unknown>>;
  /** at shutdown, after the engine stopped: resolves when no work of the service is running */
  idle?(): Promise<void>;
}

export type ServiceFactory<S extends WorkflowService = WorkflowService> = (ports: ServicePorts) => S;

/** A chore's name across the cluster: `<workflow>.<chore>`. */
export type ServiceChoreName = `${string}.${string}`;

/** Every built-in workflow's services in one runtime, by workflow id. */
export class Services {
  private constructor(private readonly byWorkflow: Map<string, WorkflowService>) {}

  /** Create each workflow's services (one instance per runtime) and start them, in catalog order. */
  static async start(entries: { definition: { id: string }; services?: ServiceFactory }[], ports: ServicePorts): Promise<Services> {
    const byWorkflow = new Map<string, WorkflowService>();
    for (const w of entries) if (w.services) byWorkflow.set(w.definition.id, w.services(ports));
    for (const s of byWorkflow.values()) await s.start?.();
    return new Services(byWorkflow);
  }

  /**
   * The services workflow `id` declared, as its own factory returned them (the workflow's code
   * names its type: `rt.services.of<ReturnType<typeof mine>>(definition.id)`).
   */
  of<S extends WorkflowService>(id: string): S {
    const s = this.byWorkflow.get(id);
    if (!s) throw new Error(`workflow ${id} declares no services`);
    return s as S;
  }

  /** the services of workflow `id` (undefined: it declares none) */
  forWorkflow(id: string): WorkflowService | undefined {
    return this.byWorkflow.get(id);
  }

  /** every chore, by its cluster-wide name */
  chores(): { name: ServiceChoreName; chore: ServiceChore }[] {
    return [...this.byWorkflow].flatMap(([id, s]) => Object.entries(s.chores ?? {}).map(([name, chore]) => ({ name: `${id}.${name}` as const, chore })));
  }

  /** Run the chore named `<workflow>.<chore>` (null: no such chore). */
  runChore(name: string): Promise<unknown> | null {
    return this.chores().find((c) => c.name === name)?.chore.run() ?? null;
  }

  /** the services' entries in the health report */
  async health(): Promise<Record<string, unknown>> {
    const parts = await Promise.all([...this.byWorkflow.values()].map((s) => s.health?.() ?? {}));
    return Object.assign({}, ...parts);
  }

  /** Resolves when no service has work running (for shutdown). */
  async idle(): Promise<void> {
    for (const s of this.byWorkflow.values()) await s.idle?.();
  }
}
