import { handler, json, parse, principalOf, query } from "@/lib/api/http";
import { listReviews } from "@/lib/api/reviews";
import { ReviewListQuery } from "@/lib/api/schemas";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

export const GET = handler(async (req: Request) => {
  const q = parse(ReviewListQuery, query(req));
  return json(await listReviews(await getRuntime(), q, principalOf(req)));
});
