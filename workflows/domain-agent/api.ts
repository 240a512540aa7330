// The personal log's API (GET /api/entries, GET/PUT/DELETE /api/profile): request schemas,
// use-cases and the endpoints this workflow's entry declares (index.ts `api`), each with its
// description for /api/openapi.json. No Next.js here: the app serves the endpoints
// (app/api/[...name]/route.ts through the registry) and the /log page's server actions call the use-cases.
import { z } from "zod";
import { empty, ok } from "../../lib/api/openapi/shared";
import type { Db } from "../../lib/db/client";
import { NotFoundError } from "../../lib/engine/errors";
import { apiMethod, type ApiEndpoint } from "../../lib/machines/workflow-api";
import { DOMAIN_IDS } from "./domains";
import { deleteProfileFact, isDay, listEntries, listObservations, listProfile, MAX_PROFILE_VALUE, PROFILE_KEY, setProfileFacts, type Observation, type ProfileFact } from "./domains/store";
import type { LogEntry } from "./domains/types";

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

// ---------------------------------------------------------------------------- the endpoints

/** what the endpoints answer, for the API description (open objects: a field added is not a break) */
const Entries = z.looseObject({ entries: z.array(z.looseObject({ id: z.string(), day: z.string(), text: z.string() })) });
const Profile = z.looseObject({ facts: z.array(z.looseObject({})), observations: z.array(z.looseObject({})) });
const ProfileFactSet = z.looseObject({ fact: z.looseObject({}), changed: z.boolean() });

const TAG = "Personal log";

/** the person's log and global context, as the app serves them (/api/entries, /api/profile) */
export const logApi: Record<string, ApiEndpoint> = {
  entries: {
    GET: apiMethod({
      operationId: "listEntries",
      tag: TAG,
      summary: "The person's log",
      description: "Newest day first; days are YYYY-MM-DD, inclusive.",
      query: EntriesQuery,
      responses: { 200: ok(Entries, "the entries") },
      handle: ({ query }, { db }) => getEntries(db, query),
    }),
  },
  profile: {
    GET: apiMethod({
      operationId: "getProfile",
      tag: TAG,
      summary: "The global context",
      query: ProfileQuery,
      responses: { 200: ok(Profile, "its facts and the observer's recent decisions") },
      handle: (_, { db }) => getProfileView(db),
    }),
    PUT: apiMethod({
      operationId: "putProfileFact",
      tag: TAG,
      summary: "Set a fact",
      body: ProfilePutBody,
      role: "operator",
      responses: { 200: ok(ProfileFactSet, "the fact and whether it changed") },
      handle: ({ body }, { db, clock }) => putProfileFact(db, body, clock.now()),
    }),
    DELETE: apiMethod({
      operationId: "deleteProfileFact",
      tag: TAG,
      summary: "Remove a fact",
      query: ProfileDeleteQuery,
      role: "operator",
      responses: { 204: empty("removed") },
      errors: { 404: "no such fact" },
      handle: ({ query }, { db }) => removeProfileFact(db, query.key),
    }),
  },
};
