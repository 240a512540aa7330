/**
 * Offline Prisma migrations for SQLite (better-sqlite3) and PostgreSQL (pg).
 *
 * Prisma 7's CLI wants to download a native schema-engine binary for
 * `migrate`/`db push`. This module instead drives the official WebAssembly
 * schema engine (`@prisma/schema-engine-wasm`) through Prisma's own driver
 * adapters, so nothing is fetched from the network.
 *
 *   applyMigrations  ~ `prisma migrate deploy`
 *   createMigration  ~ `prisma migrate dev --create-only`, but without a shadow
 *                      database: the given (scratch!) database is brought up to
 *                      date with the existing migrations, then diffed against
 *                      the schema file.
 *
 * Both write and read Prisma's normal layout and bookkeeping
 * (`<dir>/<timestamp>_<name>/migration.sql`, `migration_lock.toml`, the
 * `_prisma_migrations` table), so the real CLI stays compatible.
 *
 * Nothing is printed; pass `log` to receive the engine's JSON log lines.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";

import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import type { MigrationList, SchemaEngine as SchemaEngineT } from "@prisma/schema-engine-wasm";

export interface MigrateOptions {
  /** `file:<path>` (SQLite, relative paths resolve against process.cwd()) or `postgres[ql]://…[?schema=name]`. */
  url: string;
  /** Prisma-layout migrations folder, e.g. `prisma/migrations`. */
  migrationsDir: string;
  /** The `schema.prisma` file (datasource provider must match the url). */
  schemaPath: string;
  /** Receives the engine's log lines (JSON strings). Silent when omitted. */
  log?: (line: string) => void;
}

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

/** Apply every migration in `migrationsDir` not yet recorded in `_prisma_migrations`. Idempotent. */
export async function applyMigrations(opts: MigrateOptions): Promise<{ applied: string[] }> {
  return withEngine(opts, async (engine) => {
    const migrationsList = await readMigrationsList(opts.migrationsDir);
    const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList, filters: NO_FILTERS });
    return { applied: appliedMigrationNames };
  });
}

/**
 * Bring the (scratch) database at `url` up to date with `migrationsDir`, diff it
 * against `schemaPath`, and write `<migrationsDir>/<UTC timestamp>_<name>/migration.sql`
 * if anything changed. Returns `{ dir: null, sql: "" }` when the schema is already
 * in sync. The new migration is NOT applied. (Writes migration_lock.toml if missing.)
 */
export async function createMigration(
  opts: MigrateOptions & { name: string },
): Promise<{ dir: string | null; sql: string }> {
  return withEngine(opts, async (engine, provider) => {
    const { migrationsList, sql } = await migratedDrift(engine, opts);
    if (!sql) return { dir: null, sql: "" };

    const dirName = nextMigrationName(migrationsList, opts.name);
    const dir = path.join(opts.migrationsDir, dirName);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "migration.sql"), sql, "utf8");
    if (migrationsList.lockfile.content === null) {
      await writeFile(path.join(opts.migrationsDir, LOCKFILE), lockfileContent(provider), "utf8");
    }
    return { dir, sql };
  });
}

/**
 * What `createMigration` would write, without writing it: the SQL from the database at `url`, with
 * every migration in `migrationsDir` applied, to `schemaPath` ("" when they agree).
 */
export async function schemaDrift(opts: MigrateOptions): Promise<string> {
  return withEngine(opts, async (engine) => (await migratedDrift(engine, opts)).sql);
}

/** Apply the committed migrations, then diff the database against the schema file ("" when in sync). */
async function migratedDrift(engine: SchemaEngineT, opts: MigrateOptions): Promise<{ migrationsList: MigrationList; sql: string }> {
  const migrationsList = await readMigrationsList(opts.migrationsDir);
  await engine.applyMigrations({ migrationsList, filters: NO_FILTERS });

  const schema = { path: path.resolve(opts.schemaPath), content: await readFile(opts.schemaPath, "utf8") };
  const { exitCode, stdout } = await engine.diff({
    // "schemaDatasource" = the live database of the schema's datasource, which
    // for the wasm engine is the one behind the driver adapter ("url" targets
    // are rejected). `_prisma_migrations` is ignored by the diff.
    from: { tag: "schemaDatasource", files: [schema], configDir: path.dirname(schema.path) },
    to: { tag: "schemaDatamodel", files: [schema] },
    script: true,
    exitCode: true, // => exitCode 2 when the diff is non-empty, 0 when empty
    filters: NO_FILTERS,
  });
  return { migrationsList, sql: exitCode === 0 ? "" : (stdout ?? "") };
}

/**
 * The driver-adapter factory the app's PrismaClient should use for `url`, with the
 * same URL conventions as the migration functions (SQLite path handling,
 * `?schema=` → search_path on PostgreSQL).
 */
export function driverAdapterFor(url: string): PrismaBetterSqlite3 | PrismaPg {
  const target = parseUrl(url);
  if (target.kind === "sqlite") return new PrismaBetterSqlite3({ url: target.file });
  return new PrismaPg(target.poolConfig, target.schema ? { schema: target.schema } : undefined);
}

// ---------------------------------------------------------------------------
// URL handling
// ---------------------------------------------------------------------------

type Target =
  | { kind: "sqlite"; file: string }
  | { kind: "postgresql"; schema: string | undefined; poolConfig: { connectionString: string; options?: string } };

function parseUrl(url: string): Target {
  if (url.startsWith("file:")) {
    // `file:./dev.db?x=y` -> absolute path; query params are not meaningful for better-sqlite3.
    // `file::memory:` is kept as is (handy as the scratch DB of createMigration).
    const p = url.slice("file:".length).replace(/\?.*$/, "");
    return { kind: "sqlite", file: p === ":memory:" ? p : path.resolve(p) };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    // Prisma's `?schema=` is not understood by `pg`: strip it and turn it into the
    // connection's search_path (Prisma's migration SQL is not schema-qualified),
    // plus the adapter's `schema` option (used by the query compiler at runtime).
    const u = new URL(url);
    const schema = u.searchParams.get("schema") ?? undefined;
    u.searchParams.delete("schema");
    if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_$]*$/.test(schema)) {
      throw new Error(`Unsupported PostgreSQL schema name ${JSON.stringify(schema)} (use a plain identifier)`);
    }
    const poolConfig = { connectionString: u.toString(), ...(schema ? { options: `-c search_path=${schema}` } : {}) };
    return { kind: "postgresql", schema, poolConfig };
  }
  throw new Error(`Unsupported database url (expected file: or postgres[ql]://): ${url.replace(/\/\/[^@]*@/, "//***@")}`);
}

// ---------------------------------------------------------------------------
// Engine lifecycle
// ---------------------------------------------------------------------------

const NO_FILTERS = { externalTables: [], externalEnums: [] };
const LOCKFILE = "migration_lock.toml";

async function withEngine<T>(
  opts: MigrateOptions,
  fn: (engine: SchemaEngineT, provider: "sqlite" | "postgresql") => Promise<T>,
): Promise<T> {
  const target = parseUrl(opts.url);
  const schemaContent = await readFile(opts.schemaPath, "utf8");
  // The engine would happily diff a sqlite schema against a postgres database; refuse early.
  const declared = /datasource\s+\w+\s*\{[^}]*?provider\s*=\s*"(\w+)"/.exec(schemaContent)?.[1];
  const provider = declared === "postgres" ? "postgresql" : declared;
  if (provider !== target.kind) {
    throw new Error(`${opts.schemaPath}: datasource provider "${provider}" does not match url (${target.kind})`);
  }
  const factory = migrationAdapterFactory(target);
  const SchemaEngine = await loadSchemaEngine();

  let engine: SchemaEngineT | undefined;
  enginesInUse++;
  try {
    engine = await SchemaEngine.new(
      { datamodels: [[path.resolve(opts.schemaPath), schemaContent]] },
      (line: string) => opts.log?.(line),
      // The engine expects the error-capturing wrapper from driver-adapter-utils,
      // not a bare factory (it reads results as `{ ok, value | error }`).
      bindMigrationAwareSqlAdapterFactory(factory),
    );
    return await fn(engine, target.kind);
  } catch (e) {
    throw toError(e);
  } finally {
    try {
      engine?.free();
    } catch {
      // a panicked instance cannot be freed; it is discarded anyway
    }
    // The engine never disposes the connections it opened (a pg Pool would keep
    // the process alive, an SQLite handle would stay open): close them here.
    await factory.disposeAll();
    enginesInUse--;
    clearEngineTimers();
  }
}

/** A driver-adapter factory tuned for the schema engine, which remembers what it opened. */
function migrationAdapterFactory(target: Target): SqlMigrationAwareDriverAdapterFactory & { disposeAll(): Promise<void> } {
  const opened: SqlDriverAdapter[] = [];
  const track = (a: SqlDriverAdapter) => (opened.push(a), a);

  let inner: SqlMigrationAwareDriverAdapterFactory;
  let prepare: (a: SqlDriverAdapter) => Promise<SqlDriverAdapter>;
  if (target.kind === "sqlite") {
    inner = new PrismaBetterSqlite3({ url: target.file });
    prepare = async (a) => a;
  } else {
    // One connection, never closed while idle, like the native engine: the engine
    // takes a session-level pg_advisory_lock (released when we end the pool) and
    // never uses transactions, so a single connection cannot deadlock.
    const poolConfig = { ...target.poolConfig, max: 1, idleTimeoutMillis: 0 };
    inner = new PrismaPg(poolConfig, target.schema ? { schema: target.schema } : undefined);
    prepare = async (a) => {
      patchPgAdapter(a);
      if (target.schema) await a.executeScript(`CREATE SCHEMA IF NOT EXISTS "${target.schema}"`);
      return a;
    };
  }

  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    connect: async () => {
      // better-sqlite3 creates the file but not missing parent directories.
      if (target.kind === "sqlite" && target.file !== ":memory:") {
        await mkdir(path.dirname(target.file), { recursive: true });
      }
      return track(await prepare(await inner.connect()));
    },
    connectToShadowDb: async () => track(await prepare(await inner.connectToShadowDb())),
    disposeAll: async () => {
      for (const a of opened.splice(0)) await a.dispose().catch(() => {});
    },
  };
}

/**
 * Two fixes to @prisma/adapter-pg for schema-engine use (instance-level, so the
 * app's own PrismaClient adapters are untouched). Both rely on adapter-pg
 * internals (`performIO`, `underlyingDriver`, `onError`) and fail loudly if those change.
 *
 * 1. Introspection reads catalog columns of PostgreSQL's internal `"char"` type
 *    (OID 18, e.g. pg_class.relkind). adapter-pg rejects that OID with
 *    "Unsupported column type char"; we relabel it as text (OID 25) — pg already
 *    returns such values as strings.
 * 2. adapter-pg's executeScript splits scripts on every ";" (breaks on a ';' in a
 *    string literal, comment or function body) and runs the pieces one by one.
 *    We send the whole script as one simple-protocol query instead, as the native
 *    engine does — PostgreSQL then also runs it as one implicit transaction.
 */
function patchPgAdapter(adapter: SqlDriverAdapter): void {
  const a = adapter as any;
  for (const m of ["performIO", "underlyingDriver", "onError", "startTransaction"]) {
    if (typeof a[m] !== "function") throw new Error(`@prisma/adapter-pg internals changed: no ${m}()`);
  }
  const charAsText = (q: any) => {
    const performIO = q.performIO;
    q.performIO = async function (this: unknown, query: unknown) {
      const result = await performIO.call(this, query);
      for (const f of result?.fields ?? []) if (f.dataTypeID === 18) f.dataTypeID = 25;
      return result;
    };
    return q;
  };
  charAsText(a);
  const startTransaction = a.startTransaction;
  a.startTransaction = async function (this: unknown, ...args: unknown[]) {
    return charAsText(await startTransaction.apply(this, args));
  };
  a.executeScript = async (script: string) => {
    try {
      await a.underlyingDriver().query(script);
    } catch (e) {
      a.onError(e); // rethrows as a DriverAdapterError the engine understands
    }
  };
}

// ---------------------------------------------------------------------------
// The wasm dance
// ---------------------------------------------------------------------------

type SchemaEngineClass = typeof SchemaEngineT;
let enginePromise: Promise<SchemaEngineClass> | undefined;

/** Timers the engine armed and that have not fired yet, and how many engines are in use. */
const engineTimers = new Set<ReturnType<typeof setTimeout>>();
let enginesInUse = 0;

/** Once no engine operation is in flight, nothing can be waiting on the engine's timers. */
function clearEngineTimers() {
  if (enginesInUse > 0) return;
  for (const t of engineTimers) clearTimeout(t);
  engineTimers.clear();
}

/**
 * The package's entry point does `import * as wasm from "./schema_engine_bg.wasm"`,
 * which plain Node (and tsx) cannot import. So we load the wasm-bindgen glue
 * (`schema_engine_bg.js`) ourselves and instantiate the .wasm with it as the import
 * object, exactly what the entry point would have done. Done once per process.
 */
function loadSchemaEngine(): Promise<SchemaEngineClass> {
  enginePromise ??= (async () => {
    // The engine's Rust panic hook reports through this global; without it a panic
    // becomes a second, confusing TypeError. Our errors read the message back.
    (globalThis as any).PRISMA_WASM_PANIC_REGISTRY ??= {
      message: "",
      set_message(m: string) {
        this.message = m;
      },
    };
    const bg: any = await import("@prisma/schema-engine-wasm/schema_engine_bg");
    const pkgDir = path.dirname(createRequire(import.meta.url).resolve("@prisma/schema-engine-wasm"));
    // Optional override, e.g. node_modules/prisma/build/schema_engine_bg.wasm (same
    // wasm-bindgen interface, engine build of the installed prisma CLI).
    const wasmPath = process.env.SWITCHYARD_SCHEMA_ENGINE_WASM || path.join(pkgDir, "schema_engine_bg.wasm");
    // The glue module *is* the import object. We only swap its setTimeout import:
    // the engine arms a 10 s timer (PG advisory-lock timeout) and never clears it,
    // which kept the process alive 10 s after a PG migration. See clearEngineTimers().
    const imports: WebAssembly.ModuleImports = { ...bg };
    for (const name of Object.keys(bg).filter((k) => k.startsWith("__wbg_setTimeout_"))) {
      imports[name] = (callback: () => void, delay: number) => {
        const timer = setTimeout(() => (engineTimers.delete(timer), callback()), delay >>> 0);
        engineTimers.add(timer);
        return timer;
      };
    }
    const { instance } = await WebAssembly.instantiate(await readFile(wasmPath), { "./schema_engine_bg.js": imports });
    bg.__wbg_set_wasm(instance.exports); // hand the exports to the glue...
    (instance.exports as any).__wbindgen_start(); // ...and run the Rust start function
    return bg.SchemaEngine as SchemaEngineClass;
  })();
  return enginePromise;
}

/**
 * Engine errors are normally Errors already (message + Prisma `code` such as P3019,
 * Rust span trace on the following lines). A Rust panic surfaces as a bare wasm trap
 * ("unreachable"): attach the panic message and drop the poisoned instance.
 */
function toError(e: unknown): Error {
  if (e instanceof WebAssembly.RuntimeError) {
    enginePromise = undefined; // a panicked wasm instance must not be reused
    const registry = (globalThis as any).PRISMA_WASM_PANIC_REGISTRY;
    const panic = registry?.message;
    if (registry) registry.message = "";
    return new Error(`schema engine panicked: ${panic || e.message}`, { cause: e });
  }
  if (e instanceof Error) return e;
  const o = e as any;
  const msg = o?.message ?? o?.error ?? JSON.stringify(e);
  return Object.assign(new Error(String(msg), { cause: e }), o?.code ? { code: o.code } : {});
}

// ---------------------------------------------------------------------------
// Migrations folder (same shape as prisma's own CLI builds it)
// ---------------------------------------------------------------------------

async function readMigrationsList(migrationsDir: string): Promise<MigrationList> {
  const baseDir = path.resolve(migrationsDir);
  const lockContent = await readFile(path.join(baseDir, LOCKFILE), "utf8").catch(() => null);
  const entries = existsSync(baseDir) ? await readdir(baseDir, { withFileTypes: true }) : [];
  const migrationDirectories = await Promise.all(
    entries
      .filter((e) => e.isDirectory())
      .map(async (e) => ({
        path: e.name,
        migrationFile: {
          path: "migration.sql",
          content: await readFile(path.join(baseDir, e.name, "migration.sql"), "utf8").then(
            (value) => ({ tag: "ok" as const, value }),
            (err: Error) => ({ tag: "error" as const, value: err.message }),
          ),
        },
      })),
  );
  migrationDirectories.sort((a, b) => a.path.localeCompare(b.path));
  return {
    baseDir,
    lockfile: { path: LOCKFILE, content: lockContent },
    migrationDirectories,
    shadowDbInitScript: "",
  };
}

/** `YYYYMMDDHHMMSS_name` (UTC), always sorting after the existing migrations. */
function nextMigrationName(list: MigrationList, name: string): string {
  const slug = name.trim().toLowerCase().replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 200) || "migration";
  const last = list.migrationDirectories.at(-1)?.path.slice(0, 14);
  let t = Date.now();
  const stamp = (ms: number) => new Date(ms).toISOString().replace(/\D/g, "").slice(0, 14);
  while (last && /^\d{14}$/.test(last) && stamp(t) <= last) t += 1000;
  return `${stamp(t)}_${slug}`;
}

function lockfileContent(provider: string): string {
  return (
    "# Please do not edit this file manually\n" +
    "# It should be added in your version-control system (e.g., Git)\n" +
    `provider = "${provider}"\n`
  );
}
