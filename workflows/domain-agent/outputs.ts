// What each domain-agent effect must return, as zod schemas: the output an external worker gives
// for an effect sent out by SWITCHYARD_EXTERNAL_EFFECTS is parsed with these before the machine sees
// it (builtIn() checks at compile time that each schema's type is the effect's output type).
// Limits keep a hostile worker from filling a run's context (the input text is at most 20,000
// characters); domains are the loaded modules' ids, days are YYYY-MM-DD.
import { z } from "zod";
import { DOMAIN_IDS } from "./domains/index";

const text = (max: number) => z.string().max(max);
const Domain = z.enum(DOMAIN_IDS as [string, ...string[]]);
const domains = z.array(Domain).max(DOMAIN_IDS.length);
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a day is YYYY-MM-DD");
const key = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "a profile key is snake_case");
const adapter = text(100);
const names = (n: number) => z.array(text(100)).max(n);
const tokens = z.number().int().min(0).max(100_000_000);
const few = <T extends z.core.$ZodType>(schema: T, n: number) => z.array(schema).max(n);
const profile = z.record(key, text(500)).refine((p) => Object.keys(p).length <= 200, "at most 200 profile facts");

const metric = z.object({ name: text(100), value: z.number().finite(), unit: text(20), domain: text(60) });
const parsedEntry = z.object({ day, text: text(20_000), metrics: few(metric, 50), domains });
const retrievedEntry = parsedEntry.extend({ id: z.string().min(1).max(100) });

const context = z.object({
  domains,
  vocabulary: few(text(100), 5_000),
  expertise: few(z.object({ domain: text(60), lines: few(text(1_000), 100) }), DOMAIN_IDS.length),
  retrievalHints: z.object({ metrics: names(200), lookbackDays: z.number().int().min(0).max(3_650), related: domains }),
  profile,
  builtAt: z.number().int().min(0),
});

const window = z.object({ from: day, to: day, baselineFrom: day, baselineTo: day, label: text(200) });

const plan = z.object({
  decision: z.enum(["RETRIEVE", "EXPAND_DOMAIN", "CLARIFY", "SYNTHESIZE"]),
  reason: text(2_000),
  focus: domains,
  domains,
  widen: z.number().int().min(0).max(20),
  metrics: names(200),
  terms: names(100),
  window,
  causal: z.boolean(),
  expand: domains.optional(),
  gap: z.object({ need: text(100).nullable(), question: text(500) }).optional(),
  round: z.number().int().min(0).max(1_000),
  adapter,
});

const finding = z.object({
  statement: z.string().min(1).max(2_000),
  metric: text(100).optional(),
  domain: text(60),
  current: z.number().finite().optional(),
  baseline: z.number().finite().optional(),
  change: z.number().finite().optional(),
  concern: z.boolean(),
  evidence: names(200),
});

const trigger = z.enum(["post_query", "user_correction", "significant_log"]);

/** the effects' outputs, by effect name */
export const agentOutputs = {
  /** ROUTE: the input classified and split, the domains it selects */
  route: z.object({
    inputType: z.enum(["QUERY", "LOG", "BOTH"]),
    domains,
    confidence: z.number().min(0).max(1),
    // the built-in's own route (its model schema) leaves scores out although RouteResult names them: {} when absent
    scores: z
      .record(text(60), z.number().finite())
      .refine((s) => Object.keys(s).length <= 100, "at most 100 scores")
      .default({}),
    logText: text(20_000),
    queryText: text(20_000),
    corrections: few(z.object({ key, value: text(500), text: text(2_000) }), 50),
    today: day,
    reason: text(2_000),
    adapter,
  }),
  /** BUILD_CONTEXT: the loaded domains' vocabulary, expertise, retrieval hints, and the profile */
  buildContext: context,
  /** PLAN: one of the four exits, with the window and what to retrieve */
  plan,
  /** RETRIEVE: the entries relevant to the plan */
  retrieve: z.object({ entries: few(retrievedEntry, 5_000) }),
  /** ANALYZE: findings, and whether they suffice */
  analyze: z.object({
    verdict: z.enum(["SUFFICIENT", "INSUFFICIENT"]),
    findings: few(finding, 100),
    gap: z.object({ outside_current_expertise: z.boolean(), suspected_domain: Domain.nullable(), description: text(2_000) }).nullable(),
    reason: text(2_000),
    adapter,
  }),
  /** CLARIFY: the question to ask the person */
  clarify: z.object({ question: z.string().min(1).max(500), need: text(100).nullable(), why: text(500), answer: text(5_000).optional(), declined: z.boolean().optional() }),
  /** SYNTHESIZE: the answer and the entries it cites */
  synthesize: z.object({ text: z.string().min(1).max(50_000), citations: names(200), adapter, tokens }),
  /** EVALUATE: PASS or FAIL, with a score */
  evaluate: z.object({ verdict: z.enum(["PASS", "FAIL"]), score: z.number().min(0).max(1), reasons: few(text(1_000), 20), adapter }),
  /** PARSE: the log's entries */
  parse: z.object({ entries: few(parsedEntry, 500) }),
  /** STORE: the stored entries' ids, and the significant ones */
  store: z.object({
    ids: few(z.string().min(1).max(100), 500),
    significant: few(z.object({ entryId: z.string().min(1).max(100), day, text: text(20_000), domain: text(60), reason: text(1_000) }), 500),
  }),
  /** OBSERVE: whether the global context changes, and how */
  observe: z.object({
    triggers: few(trigger, 3),
    decision: z.enum(["update", "skip"]),
    reason: text(2_000),
    changes: few(z.object({ key, from: text(500).nullable(), to: text(500) }), 50),
    adapter,
  }),
};
