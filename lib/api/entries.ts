// The personal log's API (/api/entries, /api/profile): request schemas and use-cases. No
// Next.js here: the route handlers and the /log page's server actions call these.
import { z } from "zod";
import type { Db } from "../db/client";
import { DOMAIN_IDS } from "../domains";
import { deleteProfileFact, isDay, listEntries, listObservations, listProfile, MAX_PROFILE_VALUE, PROFILE_KEY, setProfileFacts, type Observation, type ProfileFact } from "../domains/store";
import type { LogEntry } from "../domains/types";
import { NotFoundError } from "../engine/errors";

export const USER_EDIT_REASON = "edited by the person";

const domainList = () => DOMAIN_IDS.join(", ");

export const DomainParam = z.string().refine((d) => DOMAIN_IDS.includes(d), { error: (i) => `unknown domain ${JSON.stringify(i.input)}: use one of ${domainList()}` });

export const DayParam = z.string().refine(isDay, { error: (i) => `not a date: ${JSON.stringify(i.input)} (write YYYY-MM-DD, e.g. 2026-11-23)` });

/** `GET /api/entries?domain=&from=&to=&limit=` (from and to inclusive). */
/** Query parameters beyond a schema's: each one is an issue at its own name ("runId: unknown parameter …"). */
const unknownParam = (known: string[]) => z.custom<never>(() => false, { error: `unknown parameter (${known.length ? `use ${known.join(", ")}` : "none are taken"})` });

export const EntriesQuery = z
  .object({
    domain: DomainParam.optional(),
    from: DayParam.optional(),
    to: DayParam.optional(),
    limit: z.coerce.number({ error: "limit must be a number" }).int("limit must be a whole number").min(1, "limit must be at least 1").max(5_000, "limit must be at most 5,000").optional(),
  })
  .catchall(unknownParam(["domain", "from", "to", "limit"]))
  .refine((q) => !q.from || !q.to || q.from <= q.to, {
    path: ["from"],
    error: (i) => {
      const q = i.input as { from: string; to: string };
      return `from must be on or before to (${q.from} is after ${q.to})`;
    },
  });
export type EntriesQuery = z.infer<typeof EntriesQuery>;

export const ProfileKey = z
  .string({ error: "key is required" })
  .trim()
  .regex(PROFILE_KEY, "key must be snake_case: a lowercase letter, then lowercase letters, digits or _ (at most 64), e.g. body_weight_kg");

export const ProfileValue = z
  .string({ error: "value is required" })
  .trim()
  .min(1, "value must not be empty (delete the fact instead)")
  .max(MAX_PROFILE_VALUE, `value must be at most ${MAX_PROFILE_VALUE} characters`);

/** `PUT /api/profile`: the person sets a fact (domain optional: one of the domains, or null). */
export const ProfilePutBody = z
  .object({
    key: ProfileKey,
    value: ProfileValue,
    domain: DomainParam.nullable().optional(),
  })
  .strict();
export type ProfilePutBody = z.infer<typeof ProfilePutBody>;

export const ProfileDeleteQuery = z.object({ key: ProfileKey }).catchall(unknownParam(["key"]));

/** `GET /api/profile` takes no parameters. */
export const ProfileQuery = z.object({}).catchall(unknownParam([]));

export async function getEntries(db: Db, q: EntriesQuery): Promise<{ entries: LogEntry[] }> {
  return { entries: await listEntries(db, { domain: q.domain, from: q.from, to: q.to, limit: q.limit }) };
}

/** The global context with the observer's recent decisions. */
export async function getProfileView(db: Db, observations = 50): Promise<{ facts: ProfileFact[]; observations: Observation[] }> {
  const [facts, obs] = await Promise.all([listProfile(db), listObservations(db, { limit: observations })]);
  return { facts, observations: obs };
}

/** The person sets a fact; answers with the fact as stored (unchanged when the value was the same). */
export async function putProfileFact(db: Db, body: ProfilePutBody, now: number): Promise<{ fact: ProfileFact; changed: boolean }> {
  const changes = await setProfileFacts(db, [{ key: body.key, value: body.value, ...(body.domain !== undefined ? { domain: body.domain } : {}) }], { source: "user", reason: USER_EDIT_REASON }, now);
  const fact = (await listProfile(db)).find((f) => f.key === body.key);
  if (!fact) throw new NotFoundError(`profile fact "${body.key}" was not stored`);
  return { fact, changed: changes.length > 0 };
}

/** Remove a fact: NotFoundError (404) when there is none. */
export async function removeProfileFact(db: Db, key: string): Promise<void> {
  if (!(await deleteProfileFact(db, key))) throw new NotFoundError(`no profile fact "${key}"`);
}
