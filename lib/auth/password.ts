// Password hashing with Node's scrypt (a memory-hard KDF from its crypto library): a 16-byte
// random salt per password, parameters stored with the hash, constant-time comparison.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";

const scrypt = (password: string, salt: Buffer, len: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(password, salt, len, opts, (e, key) => (e ? reject(e) : resolve(key))));

/** scrypt's cost parameters: N (CPU and memory), r (block size), p (parallelism) */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/** The cost of every new hash (32 MiB and ~0.1 s a hash): what accounts use unless told otherwise. */
export const SCRYPT_COST: Readonly<ScryptCost> = Object.freeze({ N: 2 ** 15, r: 8, p: 1 });
const LEN = 32;
const MAXMEM = 64 * 1024 * 1024;

/** A new hash of `password` at `cost` (the default SCRYPT_COST); the cost is stored with it, so verifyPassword needs none. */
export async function hashPassword(password: string, cost: ScryptCost = SCRYPT_COST): Promise<string> {
  const { N, r, p } = cost;
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize("NFC"), salt, LEN, { N, r, p, maxmem: MAXMEM });
  return `scrypt$${N}$${r}$${p}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split("$");
  if (kind !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await scrypt(password.normalize("NFC"), Buffer.from(salt, "base64url"), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: MAXMEM });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
