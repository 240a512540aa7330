// Shared by the issue-33 tests (replay, compare, evals, migrate): a workflow with a model step, a
// review and an http step; runtimes on SQLite and on a scratch PostgreSQL schema; a local HTTP
// receiver that counts every request (steps and webhooks); and a byte-for-byte dump of one run's rows.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { migrateDatabase } from "../../lib/db/migrations";
import { pgReachable, scratchSchema, type ScratchSchema } from "../../lib/db/pg-scratch";
import { query } from "../../lib/db/sql";
import { ManualClock } from "../../lib/engine/clock";
import { createRuntime, defaultEffects, type Runtime } from "../../lib/runtime";
import type { ModelPort } from "../../lib/llm/types";
import { afterAll, beforeAll, it } from "vitest";
import { flush, tempDbUrl } from "../helpers";
import { PG_URL } from "./databases";

/** DRAFT (a model) → REVIEW (approve / reject / edit) → PUBLISH (http) → DONE */
export const POST_V1 = `id: change-post
title: Draft, review, publish
initial_stage: DRAFT
stages: [DRAFT, REVIEW, PUBLISH, DONE, FAILED]
transitions: { DRAFT: [REVIEW], REVIEW: [DRAFT, PUBLISH], PUBLISH: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  DRAFT:
    llm: { prompt: "Write a short post about {{input.topic}}. {{review.feedback}}" }
    next: REVIEW
  REVIEW:
    review: { prompt: "Publish this post?", show: "{{steps.DRAFT.output}}", decisions: [approve, reject, edit] }
    on: { approve: PUBLISH, edit: PUBLISH, reject: DRAFT }
  PUBLISH:
    http: { url: "{{input.publish_url}}", method: POST, body: { text: "{{steps.DRAFT.output}}" } }
    next: DONE
    on_error: FAILED
`;

/** v2: the prompt changed (every DRAFT input differs from v1's) */
export const POST_V2 = POST_V1.replace("Write a short post about", "Write a friendly, short post about");

/** Counts every request: step posts and webhook deliveries. */
export class CountingReceiver {
  requests: { path: string; body: unknown; runId?: string }[] = [];
  url = "";
  private server = http.createServer((req, res) => {
    let data = "";
    req.on("data", (c) => (data += c));
    req.on("end", () => {
      let body: unknown = null;
      try {
        body = data ? JSON.parse(data) : null;
      } catch {
        body = data;
      }
      this.requests.push({ path: req.url ?? "", body, runId: (body as { runId?: string } | null)?.runId });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true, n: this.requests.length }));
    });
  });
  async start(): Promise<this> {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

export { WordModel } from "./word-model";

export interface Node {
  rt: Runtime & { clock: ManualClock };
  close(): Promise<void>;
}

const common = (env: NodeJS.ProcessEnv, model?: ModelPort) => ({
  env,
  model,
  migrate: migrateDatabase,
  serviceChoresMs: 0,
  seedGuide: false,
  alerts: { start: false },
  webhooks: { pollMs: 50, backoffMs: [50, 50, 50] },
  effects: (base: Parameters<typeof defaultEffects>[0]) => defaultEffects(base, env),
});

export async function sqliteNode(url = tempDbUrl("change"), clock = new ManualClock(), model?: ModelPort): Promise<Node & { url: string }> {
  const rt = (await createRuntime({ url, clock, ...common({} as NodeJS.ProcessEnv, model) })) as Runtime & { clock: ManualClock };
  return { rt, url, close: () => rt.close() };
}

/** null when PostgreSQL is not reachable (the caller skips, saying why) */
export async function postgresNode(prefix: string, clock = new ManualClock(), model?: ModelPort): Promise<(Node & { scratch: ScratchSchema; reopen(): Promise<Node> }) | null> {
  const why = await pgReachable(PG_URL);
  if (why) {
    console.log(`[${prefix}] PostgreSQL skipped: not reachable at ${PG_URL} (${why})`);
    return null;
  }
  const scratch = await scratchSchema(PG_URL, prefix);
  const open = async (): Promise<Node> => {
    const rt = (await createRuntime({
      url: `${PG_URL}?schema=${scratch.schema}`,
      clock,
      role: "all",
      queue: { schema: scratch.schema, expireSeconds: 30, maintenanceSeconds: 5 },
      worker: { concurrency: 8, pollMs: 100 },
      ...common({} as NodeJS.ProcessEnv, model),
    })) as Runtime & { clock: ManualClock };
    return { rt, close: () => rt.close() };
  };
  const first = await open();
  return {
    ...first,
    scratch,
    reopen: open,
    close: async () => {
      await first.close().catch(() => {});
      await scratch.drop();
    },
  };
}

/** Every row a run has, table by table, as text: equal text = byte-for-byte the same rows. */
export async function runRows(rt: Runtime, runId: string): Promise<string> {
  const ports = { sqlite: rt.sqlite, pg: rt.pg };
  const tables: [string, string, string][] = [
    ["Run", "id", `"id"`],
    ["Transition", "runId", `"seq"`],
    ["Snapshot", "runId", `"seq"`],
    ["Review", "runId", `"id"`],
    ["Timer", "runId", `"id"`],
    ["Artifact", "runId", `"name"`],
    ["EffectOutcome", "runId", `"key"`],
    ["ModelCall", "runId", `"id"`],
    ["Task", "runId", `"id"`],
    ["WebhookDelivery", "runId", `"id"`],
    ["ActionOutbox", "runId", `"key"`],
  ];
  const out: Record<string, unknown> = {};
  for (const [table, col, order] of tables) out[table] = (await query(ports, `SELECT * FROM "${table}" WHERE "${col}" = ? ORDER BY ${order}`, [runId])).rows;
  return JSON.stringify(out, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
}

/**
 * A describe block's runtime node (SQLite, or a scratch PostgreSQL schema: null when it is not
 * reachable, and then each `s.it` skips) opened before its tests with a counting receiver, closed
 * after them; and the waits the change tests share. Register it first in the describe block: its
 * beforeAll runs before the block's own, its afterAll after.
 */
export function nodeSuite<N extends Node>(open: () => Promise<N | null>, o: { beforeClose?: () => void } = {}) {
  let node: N | null = null;
  let receiver: CountingReceiver | null = null;
  beforeAll(async () => {
    receiver = await new CountingReceiver().start();
    node = await open();
  }, 120_000);
  afterAll(async () => {
    o.beforeClose?.();
    await node?.close();
    await receiver?.close();
  }, 60_000);
  const rt = () => node!.rt;
  const until = async <T>(what: string, get: () => Promise<T | null | undefined>): Promise<T> => {
    for (let i = 0; i < 500; i++) {
      await flush();
      const v = await get();
      if (v) return v;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  return {
    get node() {
      return node;
    },
    get receiver() {
      return receiver!;
    },
    rt,
    until,
    pendingReview: (runId: string) => until(`a review of ${runId}`, async () => (await rt().store.listReviews({ runId, status: "pending" }))[0]),
    /** `it`, skipped when the database is not reachable */
    it(title: string, fn: () => Promise<void> | void, timeout?: number) {
      it(
        title,
        async (ctx) => {
          if (!node) return ctx.skip();
          await fn();
        },
        timeout,
      );
    },
  };
}
