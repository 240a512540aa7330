// Accounts on the database: users, sessions (cookie tokens stored as SHA-256), API tokens.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db } from "../db/client";
import type { Clock } from "../engine/clock";
import { ConflictError, EngineError, InvalidError, NotFoundError } from "../engine/errors";
import { hashPassword, SCRYPT_COST, verifyPassword, type ScryptCost } from "./password";
import { ROLES, WORKER, atLeast, type Role, type TokenRole } from "./roles";

export const SESSION_COOKIE = "sy_session";
export const SESSION_DAYS = 14;
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const token = (prefix = "") => `${prefix}${randomBytes(32).toString("base64url")}`;

export interface Principal {
  userId: string;
  name: string;
  /** a session's is a person's role; a token may also be a worker's */
  role: TokenRole;
  via: "session" | "token";
  /** the API token's id and label (via token) */
  tokenId?: string;
  tokenName?: string;
  /** a worker token's allowed queues (absent: any queue) */
  queues?: string[];
}

/** Who a principal is in words, e.g. "ana" or "ana (token w1)": what a task's outcome is credited to. */
export const principalLabel = (p: Principal) => (p.via === "token" && p.tokenName ? `${p.name} (token ${p.tokenName})` : p.name);

/** A key per user or token ("user:<id>", "token:<id>"): what per-principal limits count by. */
export const principalKey = (p: Principal) => (p.via === "token" && p.tokenId ? `token:${p.tokenId}` : `user:${p.userId}`);

const QueueList = z.array(z.string().regex(/^[a-z0-9][a-z0-9._-]{0,62}$/, "a queue name: lower-case letters, digits, . _ - (at most 63)")).min(1, "name at least one queue").max(100);

export const UserInput = z
  .object({
    name: z.string().trim().min(1, "name is required").max(100).regex(/^[A-Za-z0-9_.@-]+$/, "letters, digits, _ . @ - only"),
    password: z.string().min(10, "at least 10 characters").max(200),
    role: z.enum(ROLES),
  })
  .strict();

export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60_000;

export class TooManyAttempts extends EngineError {
  constructor(minutes: number) {
    super(`too many failed sign-ins for this name: try again in ${minutes} min`, 429, "too_many_attempts");
  }
}

/** per cost: the hash an unknown name is checked against */
const dummies = new Map<string, Promise<string>>();
const dummyHash = (cost: ScryptCost) => {
  const k = `${cost.N}/${cost.r}/${cost.p}`;
  let d = dummies.get(k);
  if (!d) dummies.set(k, (d = hashPassword(randomBytes(16).toString("hex"), cost)));
  return d;
};

const LAST_USED_PRECISION_MS = 60_000;

export class Accounts {
  /** the scrypt cost of the passwords it sets (and of the check of an unknown name) */
  private passwordCost: ScryptCost;

  /** `opts.passwordCost`: SCRYPT_COST unless given (a test that hashes many passwords may pass a cheaper one) */
  constructor(
    private db: Db,
    private clock: Clock,
    opts: { passwordCost?: ScryptCost } = {},
  ) {
    this.passwordCost = opts.passwordCost ?? SCRYPT_COST;
  }

  async createUser(input: z.input<typeof UserInput>): Promise<{ id: string; name: string; role: Role }> {
    const u = UserInput.parse(input);
    if (await this.db.user.findUnique({ where: { name: u.name } })) throw new ConflictError(`user ${u.name} exists`);
    const row = await this.db.user.create({ data: { id: randomUUID(), name: u.name, role: u.role, passwordHash: await hashPassword(u.password, this.passwordCost), createdAt: new Date(this.clock.now()) } });
    return { id: row.id, name: row.name, role: row.role as Role };
  }

  async countUsers(): Promise<number> {
    return this.db.user.count();
  }

  /**
   * A new session for name + password, or null (unknown, disabled, or wrong password: one answer
   * for all). After MAX_FAILURES failures for a name within FAILURE_WINDOW_MS, further attempts
   * are refused (429) until the window has passed, right password or not. The attempt is counted
   * before the password is checked (takeAttempt), so parallel requests cannot check more.
   */
  async signIn(name: string, password: string): Promise<{ token: string; principal: Principal; expiresAt: Date } | null> {
    await this.takeAttempt(name);
    const user = await this.db.user.findUnique({ where: { name } });
    // an unknown name costs the same scrypt as a known one (no timing answer to "does it exist")
    const ok = (await verifyPassword(password, user?.passwordHash ?? (await dummyHash(this.passwordCost)))) && !!user && !user.disabled;
    if (!user || !ok) return null; // the attempt stays counted
    await this.db.signInAttempt.deleteMany({ where: { name } });
    const t = token();
    const expiresAt = new Date(this.clock.now() + SESSION_DAYS * 86_400_000);
    await this.db.session.create({ data: { id: sha256(t), userId: user.id, createdAt: new Date(this.clock.now()), expiresAt } });
    return { token: t, expiresAt, principal: { userId: user.id, name: user.name, role: user.role as Role, via: "session" } };
  }

  /**
   * Count a sign-in attempt for `name`, or throw TooManyAttempts when MAX_FAILURES are already
   * counted in the current window. One statement, so it holds across parallel requests and
   * processes (SQLite and PostgreSQL): the row is inserted, or its window restarted when it has
   * passed, or its count raised while below the limit; no row back means the limit is reached.
   */
  private pruned = 0;

  private async takeAttempt(name: string): Promise<void> {
    const now = this.clock.now();
    const expired = now - FAILURE_WINDOW_MS;
    const taken = await this.db.$queryRaw<{ count: unknown }[]>`
      INSERT INTO "SignInAttempt" ("name", "count", "windowStart") VALUES (${name}, 1, ${now})
      ON CONFLICT ("name") DO UPDATE SET
        "count" = CASE WHEN "SignInAttempt"."windowStart" <= ${expired} THEN 1 ELSE "SignInAttempt"."count" + 1 END,
        "windowStart" = CASE WHEN "SignInAttempt"."windowStart" <= ${expired} THEN excluded."windowStart" ELSE "SignInAttempt"."windowStart" END
      WHERE "SignInAttempt"."windowStart" <= ${expired} OR "SignInAttempt"."count" < ${MAX_FAILURES}
      RETURNING "count"`;
    if (taken.length > 0) {
      // rows of windows long past (names tried once, never again) are cleared now and then
      if (now - this.pruned >= FAILURE_WINDOW_MS) {
        this.pruned = now;
        await this.db.signInAttempt.deleteMany({ where: { windowStart: { lte: BigInt(expired) } } });
      }
      return;
    }
    const row = await this.db.signInAttempt.findUnique({ where: { name } });
    const since = row ? Number(row.windowStart) : now;
    throw new TooManyAttempts(Math.max(1, Math.ceil((since + FAILURE_WINDOW_MS - now) / 60_000)));
  }

  async signOut(sessionToken: string): Promise<void> {
    await this.db.session.deleteMany({ where: { id: sha256(sessionToken) } });
  }

  async fromSession(sessionToken: string | undefined | null): Promise<Principal | null> {
    if (!sessionToken) return null;
    const s = await this.db.session.findUnique({ where: { id: sha256(sessionToken) } });
    if (!s || s.expiresAt.getTime() <= this.clock.now()) return null;
    const user = await this.db.user.findUnique({ where: { id: s.userId } });
    if (!user || user.disabled) return null;
    return { userId: user.id, name: user.name, role: user.role as Role, via: "session" };
  }

  /**
   * A token for scripts, shown once; it acts with `role`, which may not exceed its owner's. A
   * worker token (external workers, /api/tasks/* only) needs an operator or admin as its owner.
   */
  async createToken(userName: string, name: string, role: TokenRole, queues?: string[]): Promise<{ id: string; token: string }> {
    const user = await this.db.user.findUnique({ where: { name: userName } });
    if (!user) throw new NotFoundError(`user ${userName} not found`);
    if (!atLeast(user.role as Role, role === WORKER ? "operator" : role)) throw new InvalidError(`a token of ${userName} (${user.role}) cannot have role ${role}${role === WORKER ? " (a worker token needs an operator or admin as its owner)" : ""}`);
    if (queues !== undefined && role !== WORKER) throw new InvalidError(`only a worker token carries queues (this one has role ${role})`);
    const parsed = queues === undefined ? null : QueueList.safeParse(queues);
    if (parsed && !parsed.success) throw new InvalidError(`queues: ${parsed.error.issues.map((i) => `${i.path.length ? `"${queues![Number(i.path[0])]}": ` : ""}${i.message}`).join("; ")}`);
    const allowed = parsed ? [...new Set(parsed.data!)] : null;
    const t = token("sy_");
    const id = randomUUID();
    await this.db.apiToken.create({ data: { id, name, userId: user.id, tokenHash: sha256(t), role, queues: allowed ? JSON.stringify(allowed) : null, createdAt: new Date(this.clock.now()) } });
    return { id, token: t };
  }

  /** Clear the sign-in lockout of `name` (its failed attempts): it may try again at once. False when none was counted. */
  async unlock(name: string): Promise<boolean> {
    const r = await this.db.signInAttempt.deleteMany({ where: { name } });
    return r.count > 0;
  }

  async revokeToken(id: string): Promise<void> {
    const r = await this.db.apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date(this.clock.now()) } });
    if (r.count === 0) throw new NotFoundError(`token ${id} not found or already revoked`);
  }

  async fromToken(bearer: string | undefined | null): Promise<Principal | null> {
    if (!bearer?.startsWith("sy_")) return null;
    const t = await this.db.apiToken.findUnique({ where: { tokenHash: sha256(bearer) } });
    if (!t || t.revokedAt) return null;
    const user = await this.db.user.findUnique({ where: { id: t.userId } });
    if (!user || user.disabled) return null;
    // when it was last used, to the minute: a script calling the API many times a second writes once a minute
    const now = this.clock.now();
    if (!t.lastUsedAt || now - t.lastUsedAt.getTime() >= LAST_USED_PRECISION_MS) {
      await this.db.apiToken.updateMany({ where: { id: t.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: new Date(now - LAST_USED_PRECISION_MS) } }] }, data: { lastUsedAt: new Date(now) } });
    }
    // a worker token works while its owner may still move runs (operator or admin); it never becomes a person's role
    const via = { via: "token" as const, tokenId: t.id, tokenName: t.name };
    if (t.role === WORKER) return atLeast(user.role as Role, "operator") ? { userId: user.id, name: user.name, role: WORKER, ...via, ...(t.queues ? { queues: JSON.parse(t.queues) as string[] } : {}) } : null;
    // never more than the owner has now
    const role = atLeast(user.role as Role, t.role as Role) ? (t.role as Role) : (user.role as Role);
    return { userId: user.id, name: user.name, role, ...via };
  }

  /** Who sent this request: a Bearer token, else the session cookie. */
  async fromRequest(headers: Headers): Promise<Principal | null> {
    const auth = headers.get("authorization");
    if (auth?.toLowerCase().startsWith("bearer ")) return this.fromToken(auth.slice(7).trim());
    return this.fromSession(cookieValue(headers.get("cookie"), SESSION_COOKIE));
  }
}

export function cookieValue(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k !== name) continue;
    try {
      return decodeURIComponent(v.join("="));
    } catch {
      return null; // malformed percent-encoding: no such session
    }
  }
  return null;
}
