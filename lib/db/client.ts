// The Prisma client, built on the same better-sqlite3 connection as the run store. Prisma's
// own transactions take the connection's mutex, so an engine batch and a Prisma transaction
// never interleave on the one connection (and never wait on each other's file locks).
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from "@prisma/driver-adapter-utils";
import { PrismaClient } from "./generated/sqlite/client";
import type { SqliteHandle } from "./sqlite";

export type Db = InstanceType<typeof PrismaClient>;

type AdapterClass = new (client: unknown, options?: unknown) => SqlDriverAdapter;
let adapterClass: Promise<AdapterClass> | null = null;

/** Prisma's better-sqlite3 adapter class (the package exports only its factory). */
function sqliteAdapterClass(): Promise<AdapterClass> {
  adapterClass ??= (async () => {
    const probe = await new PrismaBetterSqlite3({ url: ":memory:" }).connect();
    const cls = probe.constructor as AdapterClass;
    await probe.dispose();
    return cls;
  })();
  return adapterClass;
}

function guard(adapter: SqlDriverAdapter, handle: SqliteHandle): SqlDriverAdapter {
  return {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    queryRaw: (q) => adapter.queryRaw(q),
    executeRaw: (q) => adapter.executeRaw(q),
    executeScript: (s) => adapter.executeScript(s),
    getConnectionInfo: adapter.getConnectionInfo?.bind(adapter),
    async startTransaction(isolation) {
      const release = await handle.mutex.acquire();
      try {
        const tx = await adapter.startTransaction(isolation);
        let released = false;
        const done = () => {
          if (!released) {
            released = true;
            release();
          }
        };
        const wrapped: Transaction = {
          provider: tx.provider,
          adapterName: tx.adapterName,
          options: tx.options,
          queryRaw: (q) => tx.queryRaw(q),
          executeRaw: (q) => tx.executeRaw(q),
          commit: async () => {
            try {
              await tx.commit();
            } finally {
              done();
            }
          },
          rollback: async () => {
            try {
              await tx.rollback();
            } finally {
              done();
            }
          },
          createSavepoint: tx.createSavepoint?.bind(tx),
          rollbackToSavepoint: tx.rollbackToSavepoint?.bind(tx),
          releaseSavepoint: tx.releaseSavepoint?.bind(tx),
        };
        return wrapped;
      } catch (e) {
        release();
        throw e;
      }
    },
    // the connection belongs to the SqliteHandle; Prisma must not close it
    dispose: async () => {},
  } as SqlDriverAdapter;
}

export async function prismaOnSqlite(handle: SqliteHandle): Promise<Db> {
  const Adapter = await sqliteAdapterClass();
  handle.db.defaultSafeIntegers(true);
  const inner = new Adapter(handle.db);
  const factory: SqlDriverAdapterFactory = {
    provider: "sqlite",
    adapterName: inner.adapterName,
    connect: async () => guard(inner, handle),
  };
  return new PrismaClient({ adapter: factory as never });
}
