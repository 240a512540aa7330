// A server of a spec's own (accounts on, for instance), on the kind of database the suite runs
// on: a SQLite file in a directory of its own, or with E2E_DB=postgres a schema of its own on the
// suite's PostgreSQL (sy_e2e_<stamp>_<name>, its queue in the same schema, dropped afterwards)
// served as a deployment is, a web server and a worker (`npm run cluster`).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export const POSTGRES = process.env.E2E_DB === "postgres";

/** the suite's PostgreSQL URL with `schema` in place of the suite's (null: none) */
function pgUrl(schema: string | null): string {
  const u = new URL(process.env.E2E_DB_URL!);
  if (schema) u.searchParams.set("schema", schema);
  else u.searchParams.delete("schema");
  return u.toString();
}

export class OwnServer {
  readonly base: string;
  /** the server's environment: its database, port and `extra` (scripts/user.ts takes it too) */
  readonly env: NodeJS.ProcessEnv;
  private dir: string;
  private schema: string | null;
  private child: ChildProcess | null = null;

  constructor(name: string, port: number, extra: Record<string, string> = {}) {
    this.base = `http://127.0.0.1:${port}`;
    // made when it is first needed (Playwright also loads specs in processes that run none of them)
    this.dir = path.join(os.tmpdir(), `switchyard-${name}-${process.env.E2E_STAMP ?? Date.now()}-${process.pid}`);
    this.schema = POSTGRES ? `sy_e2e_${process.env.E2E_STAMP ?? Date.now()}_${name}` : null;
    const db = this.schema ? { DATABASE_URL: pgUrl(this.schema), SWITCHYARD_QUEUE_SCHEMA: this.schema } : { DATABASE_URL: `file:${path.join(this.dir, `${name}.db`)}` };
    this.env = { ...process.env, PORT: String(port), HOSTNAME: "127.0.0.1", NEXT_TELEMETRY_DISABLED: "1", ...db, ...extra };
  }

  /** `npm run user -- add --name … --role …` on this server's database; its output */
  addUser(name: string, role: string, password: string): string {
    fs.mkdirSync(this.dir, { recursive: true });
    const add = spawnSync(process.execPath, ["--import", "tsx", "scripts/user.ts", "add", "--name", name, "--role", role], { env: { ...this.env, SWITCHYARD_PASSWORD: password }, encoding: "utf8" });
    return add.stdout + add.stderr;
  }

  /** Start it and wait for /api/health (up to 2 minutes: a busy machine migrates and starts Next.js slowly). */
  async start(): Promise<void> {
    fs.mkdirSync(this.dir, { recursive: true });
    const cmd = this.schema ? ["scripts/cluster.mjs", "--workers", "1"] : ["scripts/start.mjs"];
    this.child = spawn(process.execPath, cmd, { env: this.env, stdio: "ignore", detached: true });
    for (let i = 0; i < 1200; i++) {
      if (await fetch(`${this.base}/api/health`).then((r) => r.ok, () => false)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the server at ${this.base} did not start`);
  }

  /** Kill it (its process group), remove its directory and drop its schema. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child?.pid) {
      const gone = child.exitCode === null && child.signalCode === null ? new Promise((r) => child.once("exit", r)) : null;
      process.kill(-child.pid, "SIGKILL");
      await gone;
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
    if (this.schema) {
      const c = new pg.Client({ connectionString: pgUrl(null) });
      await c.connect();
      try {
        await c.query("SET lock_timeout = '5s'");
        await c.query(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`);
      } finally {
        await c.end();
      }
    }
  }
}
