// The sign-in lockout (5 failures per name per 15 min) holds under a burst of parallel attempts,
// on SQLite and on PostgreSQL: each attempt takes its slot in the database before its password
// is checked, so at most 5 passwords are checked and the right one afterwards is refused. The
// lockout lives in the database: a restart does not clear it, an admin does (`npm run user --
// unlock --name X`: its command, scripts/user-command.ts, on its own runtime on the database).
// The passwords here are hashed at a cheap scrypt cost (PASSWORD_COST): the test is about counting
// attempts, and ~30 hashes per database at the default cost took ~0.1-0.2 CPU-s each. That the
// default cost stays SCRYPT_COST is checked below.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Accounts, FAILURE_WINDOW_MS, MAX_FAILURES, TooManyAttempts } from "../lib/auth/accounts";
import { SCRYPT_COST, verifyPassword } from "../lib/auth/password";
import { prismaOnSqlite, type Db } from "../lib/db/client";
import { pgTarget, prismaOnPostgres } from "../lib/db/postgres";
import { ManualClock } from "../lib/engine/clock";
import { userCommand } from "../scripts/user-command";
import { DATABASES, opened } from "./support/databases";

const T0 = Date.parse("2026-11-26T09:00:00Z");
/** a cheap scrypt cost for the many hashes of this file (1 MiB a hash instead of 32) */
const PASSWORD_COST = { N: 2 ** 10, r: 8, p: 1 };

for (const database of DATABASES.slice(0, 2)) {
  describe(`sign-in lockout: ${database.name}`, () => {
    const h = opened(database, "sign-in lockout");
    let db: Db | null = null;
    let url = "";
    let dialect = "";
    let skipped = false;

    beforeAll(async () => {
      const t = await h.open();
      if (!t) {
        skipped = true;
        return;
      }
      db = t.dialect === "sqlite" ? await prismaOnSqlite(t.ports.sqlite!) : prismaOnPostgres(pgTarget(t.url), 8);
      url = t.url;
      dialect = t.dialect;
    }, 60_000);
    afterAll(async () => {
      await db?.$disconnect();
      await h.close();
    });

    /** 30 parallel attempts (wrong passwords), then the right one */
    async function burst(accounts: Accounts, name: string) {
      const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => accounts.signIn(name, `wrong-password-${i}`)));
      const checked = results.filter((r) => r.status === "fulfilled");
      const refused = results.filter((r) => r.status === "rejected");
      for (const r of refused) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(TooManyAttempts);
      for (const r of checked) expect((r as PromiseFulfilledResult<unknown>).value).toBeNull();
      return { checked: checked.length, refused: refused.length };
    }

    it("30 parallel wrong passwords: at most 5 are checked, and the right one afterwards is refused", async ({ skip }) => {
      if (skipped) skip();
      const clock = new ManualClock(T0);
      const accounts = new Accounts(db!, clock, { passwordCost: PASSWORD_COST });
      await accounts.createUser({ name: "burst-user", password: "right-password-123", role: "viewer" });
      const { checked, refused } = await burst(accounts, "burst-user");
      expect(checked).toBe(MAX_FAILURES);
      expect(refused).toBe(30 - MAX_FAILURES);
      await expect(accounts.signIn("burst-user", "right-password-123")).rejects.toThrow(/too many failed sign-ins.*15 min/);
      // an unknown name is limited the same way
      expect((await burst(accounts, "nobody-here")).checked).toBe(MAX_FAILURES);
      // after the window the right password works again, and a success clears the count
      clock.advance(FAILURE_WINDOW_MS);
      expect(await accounts.signIn("burst-user", "right-password-123")).not.toBeNull();
      for (let i = 0; i < MAX_FAILURES - 1; i++) expect(await accounts.signIn("burst-user", "wrong-again-123")).toBeNull();
      expect(await accounts.signIn("burst-user", "right-password-123")).not.toBeNull();
      expect(await db!.signInAttempt.count({ where: { name: "burst-user" } })).toBe(0);
    });

    it("two processes (two Accounts on one database) share the count", async ({ skip }) => {
      if (skipped) skip();
      const clock = new ManualClock(T0 + 10 * FAILURE_WINDOW_MS);
      const a = new Accounts(db!, clock, { passwordCost: PASSWORD_COST });
      const b = new Accounts(db!, clock, { passwordCost: PASSWORD_COST });
      await a.createUser({ name: "shared-user", password: "right-password-123", role: "viewer" });
      const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).signIn("shared-user", `wrong-password-${i}`)));
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(MAX_FAILURES);
      await expect(b.signIn("shared-user", "right-password-123")).rejects.toBeInstanceOf(TooManyAttempts);
    });

    it("a locked-out name stays locked for a new process (the lockout is in the database) until an admin clears it", async ({ skip }) => {
      if (skipped) skip();
      const clock = new ManualClock(T0 + 20 * FAILURE_WINDOW_MS);
      const before = new Accounts(db!, clock, { passwordCost: PASSWORD_COST });
      await before.createUser({ name: "locked-user", password: "right-password-123", role: "viewer" });
      await burst(before, "locked-user");
      // "a restart": another Accounts on the same database still refuses the right password
      const after = new Accounts(db!, clock, { passwordCost: PASSWORD_COST });
      await expect(after.signIn("locked-user", "right-password-123")).rejects.toBeInstanceOf(TooManyAttempts);
      if (dialect === "sqlite") {
        // the admin's command (what `npm run user` runs), on a runtime of its own on DATABASE_URL
        const out: string[] = [];
        const err: string[] = [];
        const code = await userCommand(["unlock", "--name", "locked-user"], { env: { ...process.env, DATABASE_URL: url }, out: (l) => out.push(l), err: (l) => err.push(l) });
        expect(code, err.join("\n")).toBe(0);
        expect(out.join("\n")).toContain("sign-in lockout of locked-user cleared");
      } else {
        expect(await after.unlock("locked-user")).toBe(true);
      }
      expect(await after.signIn("locked-user", "right-password-123")).not.toBeNull();
      expect(await after.unlock("locked-user")).toBe(false);
    }, 90_000);
  });
}

describe("password hashing cost", () => {
  it("accounts hash at SCRYPT_COST (N 2^15, r 8, p 1) unless told otherwise; a hash carries its cost, so either verifies", async () => {
    expect(SCRYPT_COST).toEqual({ N: 2 ** 15, r: 8, p: 1 });
    const h = opened(DATABASES[0]!, "password cost");
    const t = await h.open();
    const db = await prismaOnSqlite(t!.ports.sqlite!);
    try {
      const clock = new ManualClock(T0);
      await new Accounts(db, clock).createUser({ name: "strong-user", password: "right-password-123", role: "viewer" });
      await new Accounts(db, clock, { passwordCost: PASSWORD_COST }).createUser({ name: "cheap-user", password: "right-password-123", role: "viewer" });
      const hash = async (name: string) => (await db.user.findUniqueOrThrow({ where: { name } })).passwordHash;
      expect(await hash("strong-user")).toMatch(/^scrypt\$32768\$8\$1\$/);
      expect(await hash("cheap-user")).toMatch(/^scrypt\$1024\$8\$1\$/);
      expect(await verifyPassword("right-password-123", await hash("cheap-user"))).toBe(true);
      expect(await new Accounts(db, clock).signIn("strong-user", "right-password-123")).not.toBeNull();
    } finally {
      await db.$disconnect();
      await h.close();
    }
  });
});
