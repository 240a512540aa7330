import { handler, json, parse, query, readJson } from "@/lib/api/http";
import { CreateRuleBody, createRule, listRules, RuleListQuery } from "@/lib/api/alerts";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** `?workflow=` → `{ rules: [{ id, workflow, state, stateName, metric, threshold, windowMs, enabled, createdAt, summary }] }`. */
export const GET = handler(async (req: Request) => {
  const q = parse(RuleListQuery, query(req));
  return json(await listRules(await getRuntime(), q));
});

/** `{ workflow, state, metric: "dwell" | "failure_rate" | "waiting", threshold, windowMs?, enabled? }` → 201 `{ rule }`; 422 with the issues. */
export const POST = handler(async (req: Request) => {
  const body = parse(CreateRuleBody, await readJson(req));
  const out = await createRule(await getRuntime(), body);
  return json(out, 201, { location: `/api/alerts/rules/${out.rule.id}` });
});
