import { EntriesQuery, getEntries } from "@/lib/api/entries";
import { handler, json, parse, query } from "@/lib/api/http";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** The person's log: `{ entries }`, newest day first; `domain`, `from`, `to` (inclusive days) and `limit` filter it. */
export const GET = handler(async (req: Request) => {
  const q = parse(EntriesQuery, query(req));
  const rt = await getRuntime();
  return json(await getEntries(rt.db, q));
});
