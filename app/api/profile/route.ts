import { getProfileView, ProfileDeleteQuery, ProfilePutBody, ProfileQuery, putProfileFact, removeProfileFact } from "@/lib/api/entries";
import { handler, json, parse, query, readJson } from "@/lib/api/http";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** The global context: `{ facts, observations }` (the observer's recent decisions, newest first). */
export const GET = handler(async (req: Request) => {
  parse(ProfileQuery, query(req));
  const rt = await getRuntime();
  return json(await getProfileView(rt.db));
});

/** The person sets a fact: `{ key, value, domain? }` → 200 `{ fact, changed }`. */
export const PUT = handler(async (req: Request) => {
  const body = parse(ProfilePutBody, await readJson(req));
  const rt = await getRuntime();
  return json(await putProfileFact(rt.db, body, rt.clock.now()));
});

/** `?key=` → 204, or 404 when there is no such fact. */
export const DELETE = handler(async (req: Request) => {
  const { key } = parse(ProfileDeleteQuery, query(req));
  const rt = await getRuntime();
  await removeProfileFact(rt.db, key);
  return new Response(null, { status: 204 });
});
