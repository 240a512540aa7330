// Hostile input: every API route handler is called directly with generated malformed
// bodies, query strings, headers and path params — wrong JSON types, huge strings (bodies up to
// ~2 MB, past the 1 MB limit), deep nesting (10,000 levels and more), unknown fields, invalid
// UTF-8, malformed JSON, wrong content types, odd header values, bad content-length, `../`, NUL,
// 10,000-character and unicode ids. Checked for every response: no 5xx, a 4xx carries a JSON
// body with a string `error`, the handler never throws and nothing is left unhandled.
//
// The database is seeded first (runs decided, waiting for review and aborted, an imported run,
// a webhook with deliveries, an alert rule, a profile fact, a document, a user workflow), so
// id-taking routes get real ids as well as unknown and malformed ones.
//
// Phase A (the hostile batch, > 10,000 requests): every mutating request is built to be
// rejected, so a 2xx/3xx to a non-GET fails the test; no request may write to the database
// (a per-request write log, see installWriteLog), and a digest of every table's rows is the
// same after the batch as before it.
// Phase B: workflow definitions (Mermaid, YAML, JSON), knowledge uploads and run imports that
// may be valid: a rejected one writes nothing; an accepted one writes only its own tables.
//
// Generation is seeded (fast-check): a failure prints the seed and the request, and
// `FUZZ_SEED=<seed> npx vitest run test/fuzz-api.test.ts` replays the same requests.
import { createHash } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportRun, type RunExport } from "../lib/api/run-export";
import { migrateDatabase } from "../lib/db/migrations";
import { builtInApi } from "../lib/machines/registry";
import type { Runtime } from "../lib/runtime";
import { inState, tempDbUrl } from "./helpers";

const SEED = Number(process.env.FUZZ_SEED ?? 20261124);
const url = tempDbUrl("fuzz");
process.env.DATABASE_URL = url;
// No background writers while the batch runs: alert evaluation off (it would open alerts on
// its own schedule); no model endpoint (the offline engine answers, nothing leaves the process).
process.env.SWITCHYARD_ALERT_INTERVAL_MS = "0";
for (const k of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "SWITCHYARD_LLM_ENDPOINTS", "SWITCHYARD_SEARCH_URL"]) delete process.env[k];

// ---------------------------------------------------------------------------- routes

type Params = Record<string, unknown>;
type Handler = (req: Request, ctx: { params: Promise<Params> }) => Promise<Response>;
type Method = "GET" | "POST" | "PUT" | "DELETE" | "PATCH";
type RouteModule = Partial<Record<Method, Handler>>;

const ROUTE_MODULES: Record<string, () => Promise<unknown>> = {
  "/api/alerts": () => import("../app/api/alerts/route"),
  "/api/auth/login": () => import("../app/api/auth/login/route"),
  "/api/auth/logout": () => import("../app/api/auth/logout/route"),
  "/api/auth/me": () => import("../app/api/auth/me/route"),
  "/api/alerts/rules/[id]": () => import("../app/api/alerts/rules/[id]/route"),
  "/api/alerts/rules": () => import("../app/api/alerts/rules/route"),
  "/api/health": () => import("../app/api/health/route"),
  "/api/knowledge/[id]": () => import("../app/api/knowledge/[id]/route"),
  "/api/knowledge": () => import("../app/api/knowledge/route"),
  "/api/metrics": () => import("../app/api/metrics/route"),
  "/api/reviews/[id]/decision": () => import("../app/api/reviews/[id]/decision/route"),
  "/api/reviews/[id]": () => import("../app/api/reviews/[id]/route"),
  "/api/reviews": () => import("../app/api/reviews/route"),
  "/api/runs/[id]/abort": () => import("../app/api/runs/[id]/abort/route"),
  "/api/runs/[id]/artifacts/[...path]": () => import("../app/api/runs/[id]/artifacts/[...path]/route"),
  "/api/runs/[id]/artifacts": () => import("../app/api/runs/[id]/artifacts/route"),
  "/api/runs/[id]/events": () => import("../app/api/runs/[id]/events/route"),
  "/api/runs/[id]/export": () => import("../app/api/runs/[id]/export/route"),
  "/api/runs/[id]/fork": () => import("../app/api/runs/[id]/fork/route"),
  "/api/runs/[id]": () => import("../app/api/runs/[id]/route"),
  "/api/runs/[id]/snapshots": () => import("../app/api/runs/[id]/snapshots/route"),
  "/api/runs/[id]/stream": () => import("../app/api/runs/[id]/stream/route"),
  "/api/runs/[id]/transitions": () => import("../app/api/runs/[id]/transitions/route"),
  "/api/runs/[id]/usage": () => import("../app/api/runs/[id]/usage/route"),
  "/api/runs/import": () => import("../app/api/runs/import/route"),
  "/api/runs": () => import("../app/api/runs/route"),
  "/api/stream": () => import("../app/api/stream/route"),
  "/api/tasks/[id]/complete": () => import("../app/api/tasks/[id]/complete/route"),
  "/api/tasks/[id]/fail": () => import("../app/api/tasks/[id]/fail/route"),
  "/api/tasks/[id]/heartbeat": () => import("../app/api/tasks/[id]/heartbeat/route"),
  "/api/tasks/claim": () => import("../app/api/tasks/claim/route"),
  "/api/webhooks/[id]/deliveries": () => import("../app/api/webhooks/[id]/deliveries/route"),
  "/api/webhooks/[id]": () => import("../app/api/webhooks/[id]/route"),
  "/api/webhooks/deliveries/[id]/redeliver": () => import("../app/api/webhooks/deliveries/[id]/redeliver/route"),
  "/api/webhooks": () => import("../app/api/webhooks/route"),
  "/api/workflows/[id]/export": () => import("../app/api/workflows/[id]/export/route"),
  "/api/workflows/[id]": () => import("../app/api/workflows/[id]/route"),
  "/api/workflows": () => import("../app/api/workflows/route"),
  // compare, replay, evaluations, migration, version diffs
  "/api/runs/[id]/replay": () => import("../app/api/runs/[id]/replay/route"),
  "/api/runs/[id]/compare/[other]": () => import("../app/api/runs/[id]/compare/[other]/route"),
  "/api/evals": () => import("../app/api/evals/route"),
  "/api/evals/[id]": () => import("../app/api/evals/[id]/route"),
  "/api/workflows/[id]/migrate": () => import("../app/api/workflows/[id]/migrate/route"),
  "/api/workflows/[id]/versions/[a]/diff/[b]": () => import("../app/api/workflows/[id]/versions/[a]/diff/[b]/route"),
  "/api/schedules": () => import("../app/api/schedules/route"),
  "/api/schedules/[id]": () => import("../app/api/schedules/[id]/route"),
  "/api/schedules/[id]/trigger": () => import("../app/api/schedules/[id]/trigger/route"),
  "/api/openapi.json": () => import("../app/api/openapi.json/route"),
  "/api/workflows/[id]/reviews/stats": () => import("../app/api/workflows/[id]/reviews/stats/route"),
  // the fleet and bulk actions on runs
  "/api/workflows/[id]/fleet": () => import("../app/api/workflows/[id]/fleet/route"),
  "/api/runs/bulk": () => import("../app/api/runs/bulk/route"),
  // the workflows' endpoints (their entries' `api`): every other /api/<name>, served by one route file
  "/api/[...name]": () => import("../app/api/[...name]/route"),
  ...Object.fromEntries(builtInApi().map((a) => [`/api/${a.name}`, () => import("../app/api/[...name]/route")])),
};
/** the methods each workflow endpoint declares (the catch-all route file exports them all) */
const DECLARED = new Map<string, Method[]>();
for (const a of builtInApi()) DECLARED.set(`/api/${a.name}`, [...(DECLARED.get(`/api/${a.name}`) ?? []), a.method]);
const modules: Record<string, RouteModule> = {};

/** every app/api/**\/route.ts, as "/api/…", and each workflow endpoint the catch-all serves */
function routeFiles(): string[] {
  const root = path.join(__dirname, "..", "app");
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === "route.ts") out.push(`/${path.relative(root, dir).split(path.sep).join("/")}`);
    }
  };
  walk(path.join(root, "api"));
  return [...out, ...DECLARED.keys()].sort();
}

// ---------------------------------------------------------------------------- JSON with raw parts

/** Text spliced into a JSON document as is: numbers JSON.stringify cannot write (1e400, -0), deep nesting. */
class Raw {
  constructor(readonly text: string) {}
}
type J = unknown;

/** JSON text of the templates' shared parts (the run export is large): written once */
const jsonCache = new WeakMap<object, string>();
function toJson(v: J): string {
  if (v instanceof Raw) return v.text;
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  const cached = jsonCache.get(v);
  if (cached !== undefined) return cached;
  const text = Array.isArray(v)
    ? `[${v.map(toJson).join(",")}]`
    : `{${Object.keys(v)
        .map((k) => `${JSON.stringify(k)}:${toJson((v as Record<string, J>)[k])}`)
        .join(",")}}`;
  if (text.length > 10_000) jsonCache.set(v, text);
  return text;
}

/** An object with own keys only (a "__proto__" key stays a key). */
function obj(entries: [string, J][]): Record<string, J> {
  const o: Record<string, J> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}
const withKey = (o: Record<string, J>, k: string, v: J) => obj([...Object.entries(o).filter(([x]) => x !== k), [k, v]]);
const withoutKey = (o: Record<string, J>, k: string) => obj(Object.entries(o).filter(([x]) => x !== k));

function deepText(levels: number, kind: "array" | "object" | "mixed"): string {
  if (kind === "array") return `${"[".repeat(levels)}1${"]".repeat(levels)}`;
  if (kind === "object") return `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
  const half = levels >> 1;
  return `${'{"a":['.repeat(half)}null${"]}".repeat(half)}`;
}

// ---------------------------------------------------------------------------- value generators

const ODD_STRINGS = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "../../etc/passwd",
  "..",
  ".",
  "..%2f..%2f",
  "%00",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "' OR '1'='1",
  '"; DROP TABLE "Run"; --',
  "<script>alert(1)</script>",
  "${7*7}",
  "{{7*7}}",
  "\uD800",
  "\uDFFF\uD800",
  "\u202E\u0645",
  "😀😀😀",
  "\r\n",
  "a\nb",
  "null",
  "undefined",
  "NaN",
  "-1",
  "1e400",
  "0x10",
  "*",
  "%",
  "\\",
  "/",
  "C:\\Windows\\system32",
  "file:///etc/passwd",
  "\uFEFF",
  "ÿ",
  "imported-",
  "imported-x",
  'fts "near" * ^ : OR AND NOT (',
  "\u0001\u0002\u0003",
];
const oddString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ODD_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom("\uD800", "\uDC00", "\u0000", "a", "é", "😀", "\\", '"'), { maxLength: 30 }).map((a) => a.join("")) },
);
/** 1 kB … 200 kB of one character (quotes and backslashes double in JSON) */
const hugeString = fc.tuple(fc.integer({ min: 1_000, max: 200_000 }), fc.constantFrom("a", "é", "😀", "\u0000", '"', "\\", "<", "\uD800")).map(([n, ch]) => ch.repeat(n));
const deep = fc
  .tuple(fc.oneof({ weight: 20, arbitrary: fc.integer({ min: 10_000, max: 12_000 }) }, { weight: 1, arbitrary: fc.integer({ min: 50_000, max: 150_000 }) }), fc.constantFrom<"array" | "object" | "mixed">("array", "object", "mixed"))
  .map(([n, k]) => new Raw(deepText(n, k)));
const rawNumber = fc.constantFrom(new Raw("1e400"), new Raw("-1e400"), new Raw("-0"), new Raw("1E-400"), new Raw("123456789012345678901234567890"), new Raw("0.1e1"));
const smallJson = fc.jsonValue({ maxDepth: 2 });

const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
const nonString = fc.oneof(w(2, fc.integer()), w(2, fc.double({ noNaN: true, noDefaultInfinity: true })), w(2, fc.boolean()), w(2, fc.constant(null)), w(2, fc.array(smallJson, { maxLength: 4 })), w(2, fc.dictionary(fc.string({ maxLength: 6 }), smallJson, { maxKeys: 4 })), w(2, rawNumber), w(1, deep));
const nonNumber = fc.oneof(w(2, fc.string({ maxLength: 10 })), w(2, fc.constantFrom("1", "0", "1e3", "")), w(2, fc.boolean()), w(2, fc.constant(null)), w(2, fc.array(smallJson, { maxLength: 4 })), w(2, fc.dictionary(fc.string({ maxLength: 6 }), smallJson, { maxKeys: 4 })), w(1, deep));
const nonBool = fc.oneof(fc.constantFrom("true", "false", 1, 0, null, "", [], {}), fc.integer(), deep);
const nonArray = fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean(), fc.constant(null), fc.dictionary(fc.string({ maxLength: 6 }), smallJson, { maxKeys: 4 }), fc.constant(new Raw('{"0":"on_transition"}')));
/** anything but an object (JSON null included: these schemas do not take null) */
const nonObject = fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean(), fc.constant(null), fc.array(smallJson, { maxLength: 4 }), deep.map((r) => new Raw(`[${r.text}]`)));
const anyValue = fc.oneof({ weight: 4, arbitrary: smallJson }, { weight: 2, arbitrary: oddString }, { weight: 1, arbitrary: hugeString }, { weight: 1, arbitrary: deep }, { weight: 1, arbitrary: rawNumber });
const longString = (min: number) => fc.integer({ min, max: min + 5_000 }).map((n) => "x".repeat(n));
/** a string that is none of a closed list of accepted values */
const unknownName = (prefix = "zz_") => fc.oneof(oddString, fc.string({ maxLength: 30 })).map((s) => `${prefix}${s}`);

// ---------------------------------------------------------------------------- bodies

interface BodySpec {
  /** a valid body (or valid apart from what the route then checks) */
  template: Record<string, J>;
  /** unknown fields are rejected */
  strict: boolean;
  required: string[];
  /** per field, values that are always rejected */
  bad: Record<string, fc.Arbitrary<J>>;
  /** an empty body is accepted (as {}) */
  optional?: boolean;
}

interface Body {
  data: string | Uint8Array | FormData | undefined;
  note: string;
  /** content-type to send instead of the default application/json (null: none, FormData sets its own) */
  type?: string | null;
}

const MALFORMED: ((t: string) => string)[] = [
  (t) => t.slice(0, Math.max(1, t.length >> 1)),
  (t) => t.slice(0, -1),
  (t) => `${t},`,
  (t) => `${t}}`,
  (t) => `${t} garbage`,
  (t) => t.replace(/"/g, "'"),
  (t) => `// comment\n${t}`,
  (t) => t.replace(":", ":NaN,"),
  (t) => `{${t}`,
  (t) => t.replace(/,/, ",,"),
  () => "{nope",
  () => "undefined",
  () => "{\"a\":}",
  () => "\u0000{}",
  () => "[1,2",
  () => '{"a":"\\x41"}',
  () => '{"a":"\\uD8"}',
  () => "{'single':'quotes'}",
  () => "}{",
  () => "0x1F",
  () => "Infinity",
];

type Structural = { value: J; note: string } | { text: string; note: string };

/** JSON bodies that always fail `spec` (structurally); extra hostile parts ride along. */
function invalidBody(spec: BodySpec): fc.Arbitrary<Body> {
  const fields = Object.keys(spec.bad);
  const t = spec.template;
  const structural: fc.WeightedArbitrary<Structural>[] = [];
  const add = (weight: number, arbitrary: fc.Arbitrary<Structural>) => structural.push({ weight, arbitrary });
  if (spec.strict) {
    add(
      6,
      fc.tuple(fc.array(fc.tuple(unknownName(), anyValue), { minLength: 1, maxLength: 3 }), fc.boolean()).map(([extra, first]) => {
        const entries = extra.filter(([k]) => !Object.hasOwn(t, k));
        const all: [string, J][] = first ? [...entries, ...Object.entries(t)] : [...Object.entries(t), ...entries];
        return { value: obj(entries.length ? all : [...Object.entries(t), ["zz_unknown", 1]]), note: `unknown field(s) ${entries.map(([k]) => JSON.stringify(k.slice(0, 40))).join(", ")}` };
      }),
    );
    // a known field name with a prototype-polluting sibling
    add(2, fc.constantFrom("__proto__", "constructor", "prototype").chain((k) => anyValue.map((v) => ({ value: withKey(t, k, v), note: `field ${k}` }))));
  }
  if (fields.length) {
    add(
      10,
      fc
        .constantFrom(...fields)
        .chain((f) => spec.bad[f]!.map((v) => ({ f, v })))
        .map(({ f, v }) => ({ value: withKey(t, f, v), note: `bad ${f}` })),
    );
  }
  if (spec.required.length) add(4, fc.constantFrom(...spec.required).map((f) => ({ value: withoutKey(t, f), note: `without ${f}` })));
  // (an optional body reads JSON null as absent)
  add(4, fc.oneof(fc.constant([t] as J), fc.integer(), fc.string({ maxLength: 20 }), fc.constant(spec.optional ? 0 : null), fc.boolean(), deep, fc.array(smallJson, { maxLength: 5 })).map((v) => ({ value: v, note: "root not an object" })));
  add(
    4,
    fc.tuple(fc.integer({ min: 0, max: MALFORMED.length - 1 }), fc.integer({ min: 0, max: 9 })).map(([i, one]) => {
      let text = MALFORMED[i]!(toJson(t));
      try {
        JSON.parse(text);
        text = `${text}]`; // the change left it well-formed: break it for sure
      } catch {
        // malformed, as meant
      }
      const huge = one === 0;
      return { text: huge ? `${text}${" ".repeat(1_100_000)}x` : text, note: `malformed JSON #${i}${huge ? " (1.1 MB)" : ""}` };
    }),
  );
  // past the 1 MB limit, up to ~2 MB (an unknown or wrong-typed field carries it)
  add(
    1,
    fc.tuple(fc.integer({ min: 1_000_100, max: 2_100_000 }), fc.constantFrom("a", "é", '"')).map(([n, ch]) => {
      // é is 2 bytes, \" 2 characters; the JSON string written once as text (what toJson would write for
      // ch.repeat(count), without escaping megabytes of it case after case)
      const pad = new Raw(`"${JSON.stringify(ch).slice(1, -1).repeat(Math.ceil(n / (ch === "a" ? 1 : 2)))}"`);
      return { value: spec.strict ? withKey(t, "zz_padding", pad) : withKey(t, fields[0] ?? "type", [pad]), note: `~${(n / 1e6).toFixed(1)} MB body` };
    }),
  );
  if (!spec.optional) add(2, fc.constantFrom("", " ", "\n\t ").map((text) => ({ text, note: "empty body" })));
  return fc.oneof(...structural).map((x) => ("text" in x ? { data: x.text, note: x.note } : { data: toJson(x.value), note: x.note }));
}

const BAD_UTF8 = [[0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80], [0xe2, 0x82], [0x80], [0xf4, 0x90, 0x80, 0x80]];

/** The transport: the text as is, or as bytes with invalid UTF-8 spliced in, or as UTF-16. */
const transport = fc.oneof(
  { weight: 7, arbitrary: fc.constant((b: Body): Body => b) },
  {
    weight: 2,
    arbitrary: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: BAD_UTF8.length - 1 })), { minLength: 1, maxLength: 2 }).map((cuts) => (b: Body): Body => {
      if (typeof b.data !== "string") return b;
      let bytes = Buffer.from(b.data, "utf8");
      for (const [at, which] of cuts) {
        const i = bytes.length ? at % (bytes.length + 1) : 0;
        bytes = Buffer.concat([bytes.subarray(0, i), Buffer.from(BAD_UTF8[which]!), bytes.subarray(i)]);
      }
      return { ...b, data: new Uint8Array(bytes), note: `${b.note}; invalid UTF-8 at ${cuts.map(([a]) => a).join(",")}` };
    }),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("utf16le", "bom").map((how) => (b: Body): Body => {
      if (typeof b.data !== "string") return b;
      const data = how === "bom" ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(b.data)]) : Buffer.from(b.data, "utf16le");
      return { ...b, data: new Uint8Array(data), note: `${b.note}; ${how}` };
    }),
  },
);

const latin1 = fc.array(fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f), { maxLength: 60 }).map((cs) => String.fromCharCode(...cs));
const headerValue = fc.oneof(
  { weight: 8, arbitrary: latin1 },
  { weight: 1, arbitrary: fc.integer({ min: 8_000, max: 64_000 }).map((n) => "a".repeat(n)) },
  { weight: 2, arbitrary: fc.constantFrom("../../", "*/*", "bytes=0-1,-5", "Basic Zm9vOmJhcg==", "Bearer x.y.z", "%00", "ÿþ", "gzip, deflate, br", "text/event-stream", "1.1.1.1, 2.2.2.2", "localhost:1", "null") },
);
const HEADER_NAMES = ["x-fuzz", "accept", "accept-encoding", "accept-language", "cookie", "authorization", "x-forwarded-for", "x-forwarded-host", "x-forwarded-proto", "x-real-ip", "user-agent", "referer", "origin", "if-none-match", "range", "x-http-method-override", "x-middleware-subrequest", "next-action", "rsc", "next-router-state-tree", "x-nextjs-data", "last-event-id"];
const oddHeaders = fc.dictionary(fc.constantFrom(...HEADER_NAMES), headerValue, { maxKeys: 3 });
/** without Origin: a foreign one gets a POST refused (403) before its body is read (phase B wants the body read) */
const sameSiteHeaders = oddHeaders.map(({ origin: _origin, ...rest }) => rest);
const CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=zzz",
  "application/json; charset=utf-16",
  "application/vnd.api+json",
  "application/jsonx",
  "APPLICATION/JSON",
  "json",
  "application/xml",
  "text/html; charset=latin1",
  "application/octet-stream",
  "",
];
const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant<string | null>("application/json") },
  { weight: 1, arbitrary: fc.constant<string | null>(null) },
  { weight: 3, arbitrary: fc.constantFrom<string | null>(...CONTENT_TYPES) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 60_000 }).map((n) => `application/json; x=${"a".repeat(n)}`) },
);
const contentLength = fc.oneof({ weight: 8, arbitrary: fc.constant<string | null>(null) }, { weight: 2, arbitrary: fc.constantFrom<string | null>("abc", "-1", "0", "1e400", "99999999999999", "1.5", " 12 ", "0x10", "2000000", "1000001", "NaN") });

/** headers of a request with a body */
const bodyHeaders = fc.tuple(contentType, contentLength, oddHeaders).map(([type, length, extra]) => {
  const h: Record<string, string> = { ...extra };
  if (type !== null) h["content-type"] = type;
  if (length !== null) h["content-length"] = length;
  return h;
});

// ---------------------------------------------------------------------------- query strings and ids

interface QuerySpec {
  /** name → good and bad values (raw, before encoding) */
  params: Record<string, { good: fc.Arbitrary<string>; bad: fc.Arbitrary<string> }>;
}

function enc(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    // a lone surrogate: send its (invalid) UTF-8 bytes
    return [...s].map((c) => (/[\uD800-\uDFFF]/.test(c) ? "%ED%A0%80" : encodeURIComponent(c))).join("");
  }
}
const RAW_QUERY_PIECES = ["%", "%zz", "%FF%FE", "%00", "&&&", "=", "==", "a=b=c", "+", "%E0%80", "x=%ED%A0%80", "%C0%AF=1", "=value", "limit", "limit=", "?", "a[]=1&a[]=2", "a[b]=1", "__proto__[x]=1", "constructor=1"];

function queryString(spec: QuerySpec): fc.Arbitrary<{ qs: string; note: string }> {
  const names = Object.keys(spec.params);
  const piece = fc.oneof(
    ...(names.length
      ? [
          { weight: 3, arbitrary: fc.constantFrom(...names).chain((n) => spec.params[n]!.good.map((v) => ({ p: `${enc(n)}=${enc(v)}`, bad: false }))) },
          { weight: 4, arbitrary: fc.constantFrom(...names).chain((n) => spec.params[n]!.bad.map((v) => ({ p: `${enc(n)}=${enc(v)}`, bad: true }))) },
          { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...names), fc.integer({ min: 5_000, max: 100_000 })).map(([n, len]) => ({ p: `${enc(n)}=${"9".repeat(len)}`, bad: true })) },
        ]
      : []),
    { weight: 2, arbitrary: fc.tuple(unknownName("q_"), oddString).map(([n, v]) => ({ p: `${enc(n)}=${enc(v)}`, bad: true })) },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_QUERY_PIECES).map((p) => ({ p, bad: true })) },
    { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 100_000 }).map((n) => ({ p: `${"k".repeat(Math.min(n, 2_000))}=${"v".repeat(n)}`, bad: true })) },
  );
  return fc.array(piece, { maxLength: 5 }).map((ps) => ({ qs: ps.length ? `?${ps.map((x) => x.p).join("&")}` : "", note: ps.length ? `query with ${ps.length} part(s)${ps.some((x) => x.bad) ? " (bad)" : ""}` : "no query" }));
}

const badInt = fc.oneof(fc.constantFrom("-1", "0", "1.5", "abc", "", "1e400", "NaN", "Infinity", "-0", "0x10", "9007199254740993", " 1", "1 "), oddString);
const intParam = (max: number) => ({ good: fc.integer({ min: 1, max }).map(String), bad: badInt });
const dateParam = { good: fc.constantFrom("2026-11-23", "2026-11-23T10:00:00Z", "2026-01-01"), bad: fc.oneof(fc.constantFrom("2026-13-45", "yesterday", "2026-02-30T25:61:00Z", "0000-00-00", "99999-01-01", "2026-11-23T00:00:00+99:99"), oddString) };

interface Ids {
  runs: string[];
  reviews: string[];
  webhooks: string[];
  deliveries: string[];
  rules: string[];
  documents: string[];
  workflows: string[];
}
let ids: Ids;

const fakeId = fc.oneof(fc.uuid(), fc.stringMatching(/^[A-Za-z0-9_-]{1,200}$/), fc.constantFrom("imported-nope", "missing", "0", "-", "_"));
const oddId = fc.oneof(
  { weight: 4, arbitrary: oddString },
  { weight: 1, arbitrary: fc.integer({ min: 201, max: 10_000 }).map((n) => "a".repeat(n)) },
  { weight: 1, arbitrary: fc.constantFrom("a/b", "../runs", "id%2F..", "id?x=1", "id#x", "id with space", "ID\u0000", "\u0130d", "ｉｄ") },
);
/** an id param: real (kinds present in the seeded database), unknown, or malformed */
const idOf = (kind: keyof Ids | null, realWeight = 3) =>
  fc.oneof(
    ...(kind && realWeight > 0 ? [{ weight: realWeight, arbitrary: fc.constant(null).map(() => ids[kind]).chain((xs) => fc.constantFrom(...xs)) }] : []),
    { weight: 2, arbitrary: fakeId },
    { weight: 3, arbitrary: oddId },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(undefined, "") }, // no param at all (Next.js never does this; the handlers must cope)
  );

// ---------------------------------------------------------------------------- cases

interface Case {
  route: string;
  method: Method;
  path: string;
  params?: Params;
  headers: Record<string, string>;
  body?: string | Uint8Array | FormData;
  note: string;
}

interface Endpoint {
  route: string;
  method: Method;
  count: number;
  cases: fc.Arbitrary<Case>;
  /** a non-GET that answers 2xx to anything by design (signing out); it must still write nothing */
  alwaysOk?: boolean;
}

const pathOf = (route: string, params: Params) =>
  route.replace(/\[(?:\.\.\.)?(\w+)\]/g, (_, k: string) => {
    const v = params[k];
    return Array.isArray(v) ? v.map((x) => enc(String(x))).join("/") : v === undefined ? "" : enc(String(v));
  });

function getEndpoint(route: string, count: number, q: QuerySpec, idParams: Record<string, fc.Arbitrary<unknown>> = {}): Endpoint {
  const params = Object.keys(idParams).length ? fc.record(idParams) : fc.constant({});
  return {
    route,
    method: "GET",
    count,
    cases: fc.tuple(params, queryString(q), oddHeaders).map(([p, { qs, note }, headers]) => ({ route, method: "GET" as const, path: `${pathOf(route, p as Params)}${qs}`, params: p as Params, headers, note: `${note}; params ${describeParams(p as Params)}` })),
  };
}

function bodyEndpoint(route: string, method: Method, count: number, body: fc.Arbitrary<Body>, idParams: Record<string, fc.Arbitrary<unknown>> = {}, qs: fc.Arbitrary<string> = fc.constant("")): Endpoint {
  const params = Object.keys(idParams).length ? fc.record(idParams) : fc.constant({});
  return {
    route,
    method,
    count,
    cases: fc.tuple(params, body, transport, bodyHeaders, qs).map(([p, b, tr, headers, q]) => {
      const sent = tr(b);
      const h = { ...headers };
      if (b.type !== undefined && h["content-type"] === "application/json") {
        if (b.type === null) delete h["content-type"];
        else h["content-type"] = b.type;
      }
      return { route, method, path: `${pathOf(route, p as Params)}${q}`, params: p as Params, headers: h, body: sent.data, note: `${sent.note}; params ${describeParams(p as Params)}` };
    }),
  };
}

/** A mutating request with an id only: never a real id (it would succeed). */
function idOnlyEndpoint(route: string, method: Method, count: number, id: fc.Arbitrary<unknown>, qs: fc.Arbitrary<string> = fc.constant("")): Endpoint {
  return {
    route,
    method,
    count,
    cases: fc.tuple(id, oddHeaders, qs, fc.option(fc.oneof(fc.string({ maxLength: 30 }), hugeString), { nil: undefined })).map(([i, headers, q, body]) => ({
      route,
      method,
      path: `${pathOf(route, { id: i })}${q}`,
      params: { id: i },
      headers,
      body,
      note: `id ${describeValue(i)}${body !== undefined ? `; body of ${body.length} chars` : ""}`,
    })),
  };
}

function describeValue(v: unknown): string {
  if (typeof v === "string") return v.length > 60 ? `${JSON.stringify(v.slice(0, 40))}… (${v.length} chars)` : JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(describeValue).join(", ")}]`;
  return String(v);
}
const describeParams = (p: Params) =>
  Object.entries(p)
    .map(([k, v]) => `${k}=${describeValue(v)}`)
    .join(" ") || "none";

// ---------------------------------------------------------------------------- the routes' hostile cases

function phaseA(): Endpoint[] {
  const runId = idOf("runs");
  const decidedOrPending = idOf("reviews");

  const startRun: BodySpec = {
    template: { workflow: "swiss-army", input: { request: "Write a function that adds two numbers" } },
    strict: true,
    required: ["workflow"],
    bad: {
      workflow: fc.oneof(nonString, fc.constant(""), unknownName("no-such-"), longString(101)),
      input: fc.oneof(
        fc.constant([]),
        fc.integer(),
        fc.string({ maxLength: 10 }),
        nonString.map((v) => ({ request: v })),
        fc.constant({ request: "" }),
        longString(20_001).map((s) => ({ request: s })),
        anyValue.map((v) => ({ request: "x", config: { searchTimeoutMs: -1 }, extra: v })),
        fc.tuple(unknownName(), anyValue).map(([k, v]) => obj([["request", "ok"], [k, v]])),
        nonNumber.map((v) => ({ config: { parseTimeoutMs: v } })),
      ),
    },
  };
  const events = (type: string, extra: Record<string, J>, required: string[]): BodySpec => ({
    template: { type, ...extra },
    strict: true, // the workflow's event schemas are strict
    required: ["type", ...required],
    bad: {
      type: fc.oneof(nonString, fc.constant(""), unknownName("FUZZ_"), longString(101), fc.constantFrom("xstate.init", "xstate.done.actor.parse", "xstate.after.1000.swiss-army.IDLE", "BEGIN", "approve")),
      ...(type === "REQUEST" ? { request: fc.oneof(nonString, fc.constantFrom("", "   "), longString(20_001)) } : {}),
      ...(type !== "REQUEST" ? { feedback: fc.oneof(nonString, longString(10_001)), reviewer: fc.oneof(nonString, longString(201)), modifications: fc.oneof(nonArray, fc.array(nonString, { minLength: 1, maxLength: 3 }), fc.constant(Array.from({ length: 51 }, () => "m"))) } : {}),
    },
  });
  const decision: BodySpec = {
    template: { decision: "approve", feedback: "fine", reviewer: "fuzz", modifications: ["a"], data: { note: 1 } },
    strict: true,
    required: ["decision"],
    bad: {
      decision: fc.oneof(nonString, fc.constant(""), unknownName("fuzz-"), longString(51)),
      feedback: fc.oneof(nonString, longString(10_001)),
      reviewer: fc.oneof(nonString, longString(201)),
      modifications: fc.oneof(nonArray, fc.array(nonString, { minLength: 1, maxLength: 3 }), fc.constant(Array.from({ length: 51 }, () => "m")), fc.constant(["x".repeat(2_001)])),
      data: fc.oneof(fc.array(smallJson, { maxLength: 3 }), fc.string({ maxLength: 5 }), fc.integer(), fc.constant(null), fc.boolean()),
    },
  };
  const abort: BodySpec = { template: { reason: "fuzz" }, strict: true, required: [], bad: { reason: fc.oneof(nonString, longString(2_001)) }, optional: true };
  // external workers: no real task id is ever sent, so nothing may be claimed, completed or failed
  const fence = {
    leaseToken: fc.oneof(nonString, fc.constant(""), longString(201)),
    worker: fc.oneof(nonString, fc.constantFrom("", "   "), longString(201)),
    attempt: fc.oneof(nonNumber, fc.constantFrom(0, -1, 1.5), fc.constant(new Raw("1e400"))),
  };
  const claim: BodySpec = {
    template: { queue: "fuzz-queue", worker: "fuzz", waitMs: 0 },
    strict: true,
    required: ["queue", "worker"],
    bad: {
      queue: fc.oneof(nonString, fc.constantFrom("", "Bad Queue", "-x", "a/b", "q\u0000"), longString(64)),
      worker: fence.worker,
      waitMs: fc.oneof(nonNumber, fc.constantFrom(-1, 1.5, 30_001), fc.constant(new Raw("1e400"))),
    },
  };
  const heartbeat: BodySpec = { template: { leaseToken: "lease_fuzz", worker: "fuzz", attempt: 1 }, strict: true, required: ["leaseToken"], bad: fence };
  const complete: BodySpec = { template: { output: { sent: true }, leaseToken: "lease_fuzz", worker: "fuzz", attempt: 1 }, strict: true, required: ["output", "leaseToken"], bad: fence };
  const failTask: BodySpec = {
    template: { error: "boom", retryable: true, leaseToken: "lease_fuzz", worker: "fuzz", attempt: 1 },
    strict: true,
    required: ["error", "retryable", "leaseToken"],
    bad: { error: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom("", "   "), longString(10_001), fc.constant({ message: "x", category: "lower" }), fc.constant({ msg: "x" })), retryable: nonBool, ...fence },
  };
  const fork: BodySpec = {
    template: { seq: 1, context: { note: "x" }, input: { request: "y" } },
    strict: true,
    required: ["seq"],
    bad: {
      seq: fc.oneof(nonNumber, fc.constantFrom(0, -1, 1.5, -0.5), fc.constant(new Raw("1e400")), fc.constant(new Raw("-1e400"))),
      context: fc.oneof(fc.array(smallJson, { maxLength: 3 }), fc.string({ maxLength: 5 }), fc.integer(), fc.constant(null), fc.boolean(), anyValue.map((v) => obj([["", v]]))),
    },
  };
  const webhook: BodySpec = {
    template: { workflow: "*", url: "http://127.0.0.1:9/hook", secret: "0123456789abcdef-secret", events: ["on_transition"] },
    strict: true,
    required: ["workflow", "url", "secret", "events"],
    bad: {
      workflow: fc.oneof(nonString, fc.constantFrom("", "bad id", "-x", "**", "a/b"), longString(101)),
      url: fc.oneof(nonString, fc.constantFrom("", "ftp://x.example/", "javascript:alert(1)", "not a url", "file:///etc/passwd", "http://", "//example.com", "data:text/plain,hi", "http:// spaces.example"), longString(2_001).map((s) => `http://example.com/${s}`)),
      secret: fc.oneof(nonString, fc.string({ maxLength: 3 }), longString(501)),
      events: fc.oneof(nonArray, fc.constant([]), fc.array(unknownName("on_nope"), { minLength: 1, maxLength: 3 }), fc.array(nonString, { minLength: 1, maxLength: 3 }), fc.constant(Array.from({ length: 51 }, (_, i) => `on_enter:S${i}`)), fc.constant(["on_enter:"]), fc.constant(["on_alert:a b"])),
    },
  };
  const rule: BodySpec = {
    template: { workflow: "swiss-army", state: "HUMAN_REVIEW", metric: "waiting", threshold: 60_000, windowMs: 3_600_000, enabled: true },
    strict: true,
    required: ["workflow", "state", "metric", "threshold"],
    bad: {
      workflow: fc.oneof(nonString, unknownName("no-such-"), fc.constantFrom("", "bad id", "*")),
      state: fc.oneof(nonString, fc.constant(""), unknownName("NO_SUCH_"), longString(301), fc.constantFrom("IDLE", "EXECUTING", "swiss-army")),
      metric: fc.oneof(nonString, unknownName("m_"), fc.constantFrom("DWELL", "")),
      threshold: fc.oneof(nonNumber, fc.constantFrom(0, -5, 1.5, 365 * 86_400_000 + 1), fc.constant(new Raw("1e400"))),
      windowMs: fc.oneof(nonNumber, fc.constantFrom(1, 999, 1.5, 31 * 86_400_000, -1)),
      enabled: nonBool,
    },
  };
  const profilePut: BodySpec = {
    template: { key: "fuzz_key", value: "v", domain: "sleep" },
    strict: true,
    required: ["key", "value"],
    bad: {
      key: fc.oneof(nonString, fc.constantFrom("", "Bad-Key", "1abc", "_x", "a b", "A"), longString(65).map((s) => `a${s}`)),
      value: fc.oneof(nonString, fc.constantFrom("", "   ", "\n\t"), longString(501)),
      domain: fc.oneof(fc.integer(), fc.boolean(), fc.array(smallJson, { maxLength: 2 }), unknownName("no-such-"), fc.constantFrom("", "Sleep")),
    },
  };
  const knowledgeJson: BodySpec = {
    template: { title: "Fuzz", source: "fuzz.md", type: "markdown", content: "# Fuzz\n\nSome words about fuzzing." },
    strict: true,
    required: ["content"],
    bad: {
      content: fc.oneof(nonString, fc.constantFrom("", "   ", "\u0000\u0001\u0002\u0003\u0004", "!!! ??? ...")),
      title: fc.oneof(nonString, longString(301)),
      source: fc.oneof(nonString, fc.constantFrom("", "   "), longString(1_001)),
      type: fc.oneof(nonString, unknownName("t_"), fc.constantFrom("pdf", "docx", "")),
    },
  };
  const workflowPatch: BodySpec = { template: { disabled: true }, strict: true, required: ["disabled"], bad: { disabled: nonBool } };
  const workflowBody: BodySpec = {
    template: { mermaid: "stateDiagram-v2\n  [*] --> A\n  A --> B\n" },
    strict: true,
    required: ["mermaid"],
    bad: {
      mermaid: fc.oneof(nonString, longString(200_001)),
      id: fc.oneof(nonString, longString(64)),
      json: fc.oneof(fc.constant("{}"), fc.constant({}), fc.integer(), fc.constant(null)), // two sources at once
      yaml: fc.oneof(fc.constant("id: x"), fc.integer(), fc.constant(null)),
    },
  };
  const multipartBad = fc
    .oneof(
      // text fields only, or `file` sent as text
      fc.array(fc.tuple(fc.constantFrom("file", "files", "title", "zz"), oddString), { minLength: 0, maxLength: 3 }).map((fields) => {
        const form = new FormData();
        for (const [k, v] of fields) form.append(k, v);
        if (!fields.some(([k]) => k === "file")) form.append("file", "not a file");
        return { form, note: `multipart text fields ${fields.map(([k]) => k).join(",")}` };
      }),
      // every file unsupported, binary, empty or too big
      fc
        .array(
          fc.oneof(
            fc.tuple(fc.constantFrom("a.exe", "x.pdf", "noext", "../../etc/passwd", "a.md.exe", "x.MD5", "C:\\a.bat", "a.md\u0000.exe", "é.docx"), fc.string({ maxLength: 50 })).map(([n, c]) => new File([c], n)),
            fc.constantFrom("a.md", "b.txt", "c.html").map((n) => new File([new Uint8Array(64).map((_, i) => i % 8)], n)),
            fc.constantFrom("e.md", "e.txt", "e.html").map((n) => new File(["   \n\t "], n)),
            fc.constantFrom("p.md", "p.txt").map((n) => new File(["!!! ??? ... --- ***"], n)),
            fc.integer({ min: 2 * 1024 * 1024 + 1, max: 2 * 1024 * 1024 + 50_000 }).map((n) => new File(["a".repeat(n)], "big.md")),
          ),
          { minLength: 1, maxLength: 4 },
        )
        .map((files) => {
          const form = new FormData();
          for (const f of files) form.append("file", f);
          return { form, note: `multipart files ${files.map((f) => `${JSON.stringify(f.name)}(${f.size})`).join(",")}` };
        }),
      fc.constant(null).map(() => {
        const form = new FormData();
        for (let i = 0; i < 51; i++) form.append("file", new File(["x"], `f${i}.exe`));
        return { form, note: "51 files" };
      }),
    )
    .map(({ form, note }): Body => ({ data: form, note, type: null }));
  const multipartBroken = fc
    .tuple(fc.constantFrom("zzz", "", '"quoted"', "a".repeat(100)), fc.oneof(fc.string({ maxLength: 200 }), fc.constant("--zzz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.md\"\r\n\r\n# hi"), hugeString))
    .map(([boundary, text]): Body => ({ data: text, type: `multipart/form-data; boundary=${boundary}`, note: `broken multipart (boundary ${JSON.stringify(boundary.slice(0, 10))})` }));

  const exportTemplate = (): Record<string, J> => structuredClone(exportDoc) as unknown as Record<string, J>;
  const importBody = fc
    .oneof(
      invalidBody({ template: exportTemplate(), strict: true, required: ["format", "version", "run", "transitions"], bad: { format: fc.oneof(nonString, fc.constantFrom("switchyard-run-x", "")), version: fc.oneof(nonNumber, fc.constantFrom(0, 2, 1.5)), run: nonObject, transitions: nonArray, reviews: nonArray, artifacts: nonArray } }),
    )
    .filter((b) => typeof b.data !== "string" || b.data.length < 3_000_000);

  const scheduleBad = {
    workflow: fc.oneof(nonString, fc.constant(""), fc.constant("   "), longString(101)),
    version: fc.oneof(fc.string({ maxLength: 10 }), fc.boolean(), fc.constantFrom(0, -1, 1.5, "1"), fc.constant(new Raw("1e400"))),
    cron: fc.oneof(nonString, fc.constant(""), longString(201)),
    timezone: fc.oneof(nonString, fc.constant(""), longString(101)),
    input: nonObject,
    name: fc.oneof(nonString, fc.constant(""), longString(201)),
    runName: fc.oneof(fc.integer(), fc.boolean(), longString(501)),
    overlap: fc.oneof(nonString, fc.constantFrom("", "SKIP", "queue")),
    catchup: fc.oneof(nonString, fc.constantFrom("", "all", "LATEST")),
    paused: nonBool,
  };
  const schedule: BodySpec = {
    template: { workflow: "swiss-army", cron: "0 9 * * *", input: {}, overlap: "skip", catchup: "none" },
    strict: true,
    required: ["workflow", "cron", "input", "overlap", "catchup"],
    bad: scheduleBad,
  };
  const schedulePatch: BodySpec = { template: { paused: true }, strict: true, required: [], bad: scheduleBad };

  const replay: BodySpec = {
    template: { version: 1, live: ["EXECUTING"], decisions: "replay" },
    strict: true,
    required: [],
    optional: true,
    bad: {
      version: fc.oneof(nonNumber, fc.constantFrom(0, -1, 1.5), fc.constant(new Raw("1e400"))),
      live: fc.oneof(nonArray, fc.array(nonString, { minLength: 1, maxLength: 3 }), fc.constant(["   "]), fc.constant(Array.from({ length: 101 }, (_, i) => `S${i}`)), longString(201).map((x) => [x])),
      decisions: fc.oneof(nonString, unknownName("d_"), fc.constantFrom("", "REPLAY")),
    },
  };
  const evalBody: BodySpec = {
    template: { workflow: "swiss-army", candidate: {}, cases: { from: "decided-reviews", limit: 5 } },
    strict: true,
    required: ["workflow", "candidate", "cases"],
    bad: {
      workflow: fc.oneof(nonString, fc.constant(""), longString(101)),
      candidate: fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.constant(null), fc.constantFrom({ version: 0 }, { version: 1.5 }, { version: "1" }, { definition: {} }, { definition: { yaml: 1 } }, { definition: { yaml: "a", json: "b" } }, { version: 1, definition: { yaml: "x" } })),
      cases: fc.oneof(nonObject, fc.constantFrom({}, { from: "all" }, { from: "decided-reviews", limit: 0 }, { from: "decided-reviews", limit: 501 }, { from: "decided-reviews", since: "yesterday" }, { from: "decided-reviews", runIds: [] }, { from: "decided-reviews", zz: 1 })),
    },
  };
  const migrate: BodySpec = {
    template: { from: 1, to: 2, map: { DRAFT: "REVIEW" }, runs: ["x"], dryRun: true },
    strict: true,
    required: ["from", "to"],
    bad: {
      from: fc.oneof(nonNumber, fc.constantFrom(0, -1, 1.5)),
      to: fc.oneof(nonNumber, fc.constantFrom(0, -1, 1.5)),
      map: fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.constant(null), fc.array(smallJson, { maxLength: 3 }), fc.constant({ "": "A" }), fc.constant({ A: 1 }), fc.constant({ A: "x".repeat(81) })),
      runs: fc.oneof(nonArray, fc.constant([]), fc.array(nonString, { minLength: 1, maxLength: 3 }), fc.constant(["bad id!"])),
      dryRun: nonBool,
    },
  };
  const version = fc.oneof(fc.constantFrom("1", "2", "0", "-1", "1.5", "x", "99999999999999999999"), oddString);
  // (every case is refused: no run is aborted or retried)
  const bulk: BodySpec = {
    template: { action: "abort", ids: ["fuzz-no-such-run"], reason: "fuzz" },
    strict: true,
    required: ["action"],
    bad: {
      action: fc.oneof(nonString, unknownName("act_"), fc.constantFrom("", "ABORT", "fork")),
      ids: fc.oneof(nonArray, fc.constant([]), fc.array(nonString, { minLength: 1, maxLength: 3 }), fc.constant(["bad id!"]), fc.constant(Array.from({ length: 1_001 }, (_, i) => `r${i}`)), longString(201).map((x) => [x])),
      filter: fc.oneof(nonObject, fc.constantFrom({ zz: 1 }, { status: "nope" }, { waitingFor: "sleep" }, { limit: "5" }, { state: "" }, { unclaimedLongerThan: "-1" })),
      reason: fc.oneof(nonString, longString(2_001)),
    },
  };

  const login: BodySpec = {
    template: { name: "admin", password: "correct horse battery staple" },
    strict: true,
    required: ["name", "password"],
    bad: { name: fc.oneof(nonString, fc.constantFrom("", "   "), longString(101)), password: fc.oneof(nonString, fc.constant(""), longString(201)) },
  };
  // session cookies and bearer tokens that name nothing (and some that cannot be decoded)
  const credentials = fc
    .tuple(
      fc.oneof(fc.constant("sy_session"), fc.constantFrom("session", "sy_session ", "SY_SESSION")),
      fc.oneof(fc.base64String({ maxLength: 60 }), oddString.map(enc), fc.constantFrom("", "%", "%zz", "%E0%A4%A", "a=b=c", "\"quoted\""), fc.integer({ min: 5_000, max: 60_000 }).map((n) => "t".repeat(n))),
      fc.oneof(fc.constant(undefined), fc.constantFrom("Bearer sy_nope", "Bearer ", "Basic Zm9vOmJhcg==", "Bearer sy_%", "bearer  sy_x y")),
    )
    .map(([name, value, authorization]) => ({ cookie: `${name}=${value}`, ...(authorization ? { authorization } : {}) }));

  return [
    bodyEndpoint("/api/auth/login", "POST", 200, invalidBody(login)),
    {
      route: "/api/auth/logout",
      method: "POST",
      count: 150,
      alwaysOk: true,
      cases: fc.tuple(credentials, oddHeaders).map(([cred, headers]) => ({ route: "/api/auth/logout", method: "POST" as const, path: "/api/auth/logout", headers: { ...headers, ...cred }, note: `cookie ${describeValue(cred.cookie)}` })),
    },
    {
      route: "/api/auth/me",
      method: "GET",
      count: 150,
      cases: fc.tuple(credentials, oddHeaders).map(([cred, headers]) => ({ route: "/api/auth/me", method: "GET" as const, path: "/api/auth/me", headers: { ...headers, ...cred }, note: `cookie ${describeValue(cred.cookie)}` })),
    },
    getEndpoint("/api/alerts", 200, { params: { status: { good: fc.constantFrom("open", "resolved"), bad: oddString }, workflow: { good: fc.constantFrom("swiss-army", "x"), bad: fc.oneof(oddString, longString(101)) }, limit: intParam(1_000) } }),
    idOnlyEndpoint("/api/alerts/rules/[id]", "DELETE", 200, idOf(null)),
    getEndpoint("/api/alerts/rules", 200, { params: { workflow: { good: fc.constantFrom("swiss-army"), bad: fc.oneof(oddString, longString(101)) } } }),
    bodyEndpoint("/api/alerts/rules", "POST", 400, invalidBody(rule)),
    getEndpoint("/api/entries", 200, { params: { domain: { good: fc.constantFrom("sleep", "mood"), bad: oddString }, from: dateParam, to: dateParam, limit: intParam(5_000) } }),
    getEndpoint("/api/health", 150, { params: {} }),
    getEndpoint("/api/knowledge/[id]", 200, { params: {} }, { id: idOf("documents") }),
    idOnlyEndpoint("/api/knowledge/[id]", "DELETE", 200, idOf(null)),
    getEndpoint("/api/knowledge", 250, { params: { q: { good: fc.constantFrom("state machine", "review", "a"), bad: fc.oneof(oddString, longString(1_001)) }, limit: intParam(100), offset: { good: fc.nat({ max: 100 }).map(String), bad: badInt }, documentId: { good: fc.constant(null).map(() => ids.documents[0]!), bad: oddId } } }),
    bodyEndpoint("/api/knowledge", "POST", 450, fc.oneof({ weight: 5, arbitrary: invalidBody(knowledgeJson) }, { weight: 2, arbitrary: multipartBad }, { weight: 1, arbitrary: multipartBroken })),
    getEndpoint("/api/metrics/modes", 150, { params: { since: { good: fc.constantFrom("2026-11-23T00:00:00Z"), bad: fc.oneof(oddString, dateParam.bad) } } }),
    getEndpoint("/api/metrics", 150, { params: {} }),
    getEndpoint("/api/profile", 150, { params: {} }),
    bodyEndpoint("/api/profile", "PUT", 400, invalidBody(profilePut)),
    {
      // never the seeded fact alone (that would delete it): with it, always an unknown parameter
      route: "/api/profile",
      method: "DELETE",
      count: 200,
      cases: fc
        .tuple(
          fc.oneof(fc.constant("fuzz_real_fact&zz=1"), fc.constant("fuzz_real_fact&key2=x"), unknownName("zz_nope_").map((k) => enc(k.replace(/[^a-z0-9_]/g, "_"))), oddString.map(enc), fc.constantFrom("", "%", "%FF", "A", "1")),
          oddHeaders,
        )
        .map(([k, headers]) => ({ route: "/api/profile", method: "DELETE" as const, path: `/api/profile?key=${k}`, headers, note: `key=${k.slice(0, 60)}` })),
    },
    bodyEndpoint("/api/reviews/[id]/decision", "POST", 450, invalidBody(decision), { id: decidedOrPending }),
    bodyEndpoint("/api/tasks/claim", "POST", 250, invalidBody(claim)),
    bodyEndpoint("/api/tasks/[id]/heartbeat", "POST", 150, invalidBody(heartbeat), { id: idOf(null) }),
    bodyEndpoint("/api/tasks/[id]/complete", "POST", 200, invalidBody(complete), { id: idOf(null) }),
    bodyEndpoint("/api/tasks/[id]/fail", "POST", 200, invalidBody(failTask), { id: idOf(null) }),
    getEndpoint("/api/reviews/[id]", 150, { params: {} }, { id: decidedOrPending }),
    getEndpoint("/api/reviews", 200, { params: { status: { good: fc.constantFrom("pending", "decided", "cancelled"), bad: oddString }, runId: { good: fc.constant(null).map(() => ids.runs[0]!), bad: fc.oneof(oddString, longString(201)) }, limit: intParam(1_000), assigned: { good: fc.constantFrom("legal", "ops-leads"), bad: fc.oneof(oddString, longString(64)) }, overdue: { good: fc.constantFrom("true", "false"), bad: oddString } } }),
    bodyEndpoint("/api/runs/[id]/abort", "POST", 400, invalidBody(abort), { id: runId }),
    {
      route: "/api/runs/[id]/artifacts/[...path]",
      method: "GET",
      count: 200,
      cases: fc
        .tuple(
          runId,
          fc.oneof(
            fc.constant(["notes", "summary.md"]),
            fc.constant(["bin", "blob.dat"]),
            fc.array(oddString, { minLength: 0, maxLength: 7 }),
            fc.array(fc.constantFrom("..", ".", "notes", "%2e%2e", "a".repeat(201), "summary.md", "\u0000"), { minLength: 1, maxLength: 6 }),
            fc.constantFrom(undefined, "notes/summary.md", 42, null, [1, 2]),
          ),
          fc.constantFrom("", "?download=1", "?download=%00", `?download=${"x".repeat(5_000)}`),
          oddHeaders,
        )
        .map(([id, name, qs, headers]) => ({ route: "/api/runs/[id]/artifacts/[...path]", method: "GET" as const, path: `/api/runs/${enc(String(id))}/artifacts${qs}`, params: { id, path: name }, headers, note: `id ${describeValue(id)} name ${describeValue(name)}` })),
    },
    getEndpoint("/api/runs/[id]/artifacts", 200, { params: {} }, { id: runId }),
    bodyEndpoint(
      "/api/runs/[id]/events",
      "POST",
      450,
      fc.oneof(invalidBody(events("REQUEST", { request: "Write a function" }, ["request"])), invalidBody(events("APPROVE", { feedback: "ok" }, [])), invalidBody(events("ABORT", { reason: "r" }, []))),
      { id: runId },
    ),
    getEndpoint("/api/runs/[id]/export", 200, { params: { download: { good: fc.constantFrom("0", "1", "true", "false"), bad: oddString } } }, { id: runId }),
    bodyEndpoint("/api/runs/[id]/fork", "POST", 450, invalidBody(fork), { id: runId }),
    getEndpoint("/api/runs/[id]", 200, { params: {} }, { id: runId }),
    getEndpoint("/api/runs/[id]/snapshots", 200, { params: { seq: { good: fc.integer({ min: 1, max: 12 }).map(String), bad: fc.oneof(badInt, fc.constantFrom("100000", "9007199254740993")) } } }, { id: runId }),
    getEndpoint("/api/runs/[id]/stream", 120, { params: {} }, { id: runId }),
    getEndpoint("/api/runs/[id]/transitions", 200, { params: { after: { good: fc.nat({ max: 20 }).map(String), bad: badInt }, limit: intParam(10_000), payload: { good: fc.constantFrom("0", "1", "true", "false"), bad: oddString } } }, { id: runId }),
    getEndpoint("/api/runs/[id]/usage", 200, { params: {} }, { id: runId }),
    bodyEndpoint("/api/runs/import", "POST", 300, importBody, {}, fc.constantFrom("", "", "?as=new", "?as=old", "?as=new&as=new", "?zz=1", `?as=${"n".repeat(10_000)}`)),
    getEndpoint("/api/runs", 250, {
      params: {
        status: { good: fc.constantFrom("waiting", "running,waiting", "completed"), bad: fc.oneof(oddString, longString(201)) },
        workflow: { good: fc.constantFrom("swiss-army", "x"), bad: longString(101) },
        waiting: { good: fc.constantFrom("true", "false"), bad: oddString },
        q: { good: fc.oneof(fc.constantFrom("function", "ab", "a", "imported"), oddString.filter((s) => s.length <= 200)), bad: longString(201) },
        from: dateParam,
        to: dateParam,
        waitingLongerThan: { good: fc.nat({ max: 1000 }).map(String), bad: fc.oneof(badInt.filter((s) => !/^\d+(\.\d+)?$/.test(s.trim())), fc.constant("525601")) },
        retrying: { good: fc.constantFrom("true", "false"), bad: oddString },
        failedIn: { good: fc.constantFrom("EXECUTING", "IDLE"), bad: fc.oneof(fc.constantFrom("", "   "), longString(201)) },
        waitingFor: { good: fc.constantFrom("review", "review,timer", "task,event,effect"), bad: fc.oneof(oddString.filter((x) => !/^(review|timer|task|event|effect)(,(review|timer|task|event|effect))*$/.test(x)), fc.constantFrom(",", "sleep", "review,")) },
        state: { good: fc.oneof(fc.constantFrom("HUMAN_REVIEW", "IDLE", "A.B"), oddString.filter((x) => x.length > 0 && x.length <= 300 && !/[\u0000-\u001f]/.test(x))), bad: fc.oneof(fc.constant(""), longString(301), fc.constant("a\u0000b")) },
        unclaimedLongerThan: { good: fc.nat({ max: 1000 }).map(String), bad: fc.oneof(fc.constantFrom("-1", "x", "525601")) },
        limit: intParam(500),
        offset: { good: fc.nat({ max: 100 }).map(String), bad: badInt },
      },
    }),
    bodyEndpoint("/api/runs", "POST", 450, invalidBody(startRun)),
    getEndpoint("/api/stream", 100, { params: {} }),
    getEndpoint("/api/webhooks/[id]/deliveries", 200, { params: { limit: intParam(500) } }, { id: idOf("webhooks") }),
    getEndpoint("/api/webhooks/[id]", 200, { params: {} }, { id: idOf("webhooks") }),
    idOnlyEndpoint("/api/webhooks/[id]", "DELETE", 200, idOf(null)),
    idOnlyEndpoint("/api/webhooks/deliveries/[id]/redeliver", "POST", 200, idOf(null)),
    getEndpoint("/api/webhooks", 200, { params: { workflow: { good: fc.constantFrom("*", "swiss-army"), bad: fc.oneof(oddString, longString(101)) } } }),
    bodyEndpoint("/api/webhooks", "POST", 450, invalidBody(webhook)),
    getEndpoint("/api/workflows/[id]/export", 200, { params: { format: { good: fc.constantFrom("json", "mermaid"), bad: oddString }, download: { good: fc.constantFrom("0", "1"), bad: oddString } } }, { id: idOf("workflows") }),
    getEndpoint("/api/workflows/[id]", 200, { params: {} }, { id: idOf("workflows") }),
    bodyEndpoint("/api/workflows/[id]", "PATCH", 300, invalidBody(workflowPatch), { id: idOf("workflows") }),
    idOnlyEndpoint("/api/workflows/[id]", "DELETE", 200, idOf(null), fc.constantFrom("", "?force=true", "?force=1", "?force=true&x=1")),
    getEndpoint("/api/workflows", 150, { params: {} }),
    bodyEndpoint("/api/workflows", "POST", 450, invalidBody(workflowBody)),
    // (an empty replay body is valid and would start a run: every case here is refused)
    bodyEndpoint("/api/runs/[id]/replay", "POST", 300, invalidBody(replay), { id: runId }),
    getEndpoint("/api/runs/[id]/compare/[other]", 150, { params: {} }, { id: runId, other: runId }),
    bodyEndpoint("/api/evals", "POST", 300, invalidBody(evalBody)),
    getEndpoint("/api/evals", 100, { params: { workflow: { good: fc.constantFrom("swiss-army", "x"), bad: fc.oneof(oddString, longString(101)) } } }),
    getEndpoint("/api/evals/[id]", 100, { params: {} }, { id: idOf(null) }),
    bodyEndpoint("/api/workflows/[id]/migrate", "POST", 300, invalidBody(migrate), { id: idOf("workflows") }),
    getEndpoint("/api/workflows/[id]/versions/[a]/diff/[b]", 150, { params: {} }, { id: idOf("workflows"), a: version, b: version }),
    bodyEndpoint("/api/schedules", "POST", 300, invalidBody(schedule)),
    getEndpoint("/api/schedules", 100, { params: {} }),
    getEndpoint("/api/schedules/[id]", 100, { params: {} }, { id: idOf(null) }),
    bodyEndpoint("/api/schedules/[id]", "PATCH", 200, invalidBody(schedulePatch), { id: idOf(null) }),
    idOnlyEndpoint("/api/schedules/[id]", "DELETE", 100, idOf(null)),
    idOnlyEndpoint("/api/schedules/[id]/trigger", "POST", 100, idOf(null)),
    // (new endpoints go last: each one's cases are seeded by its place in this list)
    getEndpoint("/api/openapi.json", 60, { params: {} }),
    getEndpoint("/api/workflows/[id]/reviews/stats", 150, { params: { window: { good: fc.constantFrom("1h", "24h", "7d", "all"), bad: oddString } } }, { id: idOf("workflows") }),
    getEndpoint("/api/workflows/[id]/fleet", 150, { params: { window: { good: fc.constantFrom("1h", "24h", "7d", "all"), bad: oddString }, version: { good: fc.constantFrom("1", "2"), bad: fc.oneof(badInt, fc.constantFrom("0", "1.5", "9999999999")) } } }, { id: idOf("workflows") }),
    bodyEndpoint("/api/runs/bulk", "POST", 300, invalidBody(bulk)),
    // the catch-all for the workflows' endpoints: a name no workflow serves (404), or a method its
    // endpoint does not declare (405); both as JSON errors, neither writing anything
    ...(["GET", "POST", "PUT", "PATCH", "DELETE"] as const).map((method): Endpoint => {
      const undeclared = [...DECLARED].filter(([, ms]) => !ms.includes(method)).map(([route]) => route.slice("/api/".length));
      const name = fc.oneof(
        fc.array(fc.oneof(oddString, fc.constantFrom("x", "runs", "entries..", "metrics", "%2e%2e", "..")), { minLength: 1, maxLength: 3 }).map((segs) => segs.map((x) => enc(x)).join("/")),
        ...(undeclared.length ? [fc.constantFrom(...undeclared)] : []),
      );
      return {
        route: "/api/[...name]",
        method,
        count: 60,
        cases: fc.tuple(name, oddHeaders).map(([n, headers]) => ({ route: "/api/[...name]", method, path: `/api/${n}`, params: { name: n.split("/") }, headers, ...(method === "GET" ? {} : { body: "{}" }), note: `name ${n.slice(0, 80)}` })),
      };
    }),
  ];
}

// ---------------------------------------------------------------------------- phase B: definitions, uploads, imports

const STATE_NAMES = fc.oneof({ weight: 6, arbitrary: fc.constantFrom("A", "B", "C", "IDLE", "Review", "done_1", "S_2") }, { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "end", "state", "note", "9bad", "with space", "é", "") });
const MERMAID_LINES: fc.Arbitrary<string>[] = [
  fc.constantFrom("stateDiagram-v2", "stateDiagram", "```mermaid", "```", "---", "title: Fuzz", "%% comment", "direction LR", "classDef hot fill:#f00", "class A hot", "style A fill:#fff", "hide empty description", "--", "}", "{", "end note", "accDescr: described", "accTitle: t"),
  fc.tuple(STATE_NAMES, STATE_NAMES, fc.option(oddString, { nil: undefined })).map(([a, b, l]) => `${a} --> ${b}${l !== undefined ? ` : ${l}` : ""}`),
  STATE_NAMES.map((s) => `[*] --> ${s}`),
  STATE_NAMES.map((s) => `${s} --> [*]`),
  fc.constant("[*] --> [*]"),
  STATE_NAMES.map((s) => `state ${s} {`),
  fc.tuple(STATE_NAMES, fc.constantFrom("choice", "fork", "join", "nope", "")).map(([s, k]) => `state ${s} <<${k}>>`),
  fc.tuple(oddString, STATE_NAMES).map(([d, s]) => `state "${d}" as ${s}`),
  fc.tuple(STATE_NAMES, oddString).map(([s, t]) => `${s} : ${t}`),
  fc.tuple(fc.constantFrom("left", "right", "up"), STATE_NAMES, oddString).map(([side, s, t]) => `note ${side} of ${s} : ${t}`),
  fc.tuple(fc.constantFrom("left", "right"), STATE_NAMES).map(([side, s]) => `note ${side} of ${s}`),
  STATE_NAMES.map((s) => `${s}:::hot --> B`),
  oddString,
  fc.integer({ min: 1_000, max: 20_000 }).map((n) => `A --> B : ${"l".repeat(n)}`),
];
const mermaidDoc = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.oneof(...MERMAID_LINES), { minLength: 0, maxLength: 60 }).map((ls) => ({ text: ["stateDiagram-v2", ...ls].join("\n"), note: `mermaid, ${ls.length} random lines` })) },
  // huge state counts: a chain of n states (the schema takes at most 500)
  { weight: 1, arbitrary: fc.integer({ min: 400, max: 6_000 }).map((n) => ({ text: `stateDiagram-v2\n[*] --> S0\n${Array.from({ length: n }, (_, i) => `S${i} --> S${i + 1}`).join("\n")}`, note: `mermaid chain of ${n + 1} states` })) },
  // deep composites
  { weight: 1, arbitrary: fc.integer({ min: 50, max: 3_000 }).map((n) => ({ text: `stateDiagram-v2\n[*] --> C0\n${Array.from({ length: n }, (_, i) => `state C${i} {\n[*] --> C${i + 1}`).join("\n")}\nX\n${"}\n".repeat(n)}`, note: `mermaid ${n} nested composites` })) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 5_000 }).map((n) => ({ text: `stateDiagram-v2\n${"state A {\n".repeat(n)}`, note: `mermaid ${n} unclosed composites` })) },
);
const YAML_SNIPPETS = fc.constantFrom(
  "id: fz-yaml\nstages: [A, B]\ninitial_stage: A\ntransitions:\n  A: [B]\n",
  "id: fz-yaml\nstages: [A, B\ninitial_stage: A\n",
  "id: fz-yaml\n\tstages: [A]\n",
  "a: &a [1, 2]\nb: *a\nc: *a\n",
  "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n",
  "id: fz-yaml\nid: again\n",
  "!!js/function 'function(){}'\n",
  "<<: *nope\n",
  "id: !!binary aGVsbG8=\n",
  "? [complex, key]\n: value\n",
  "id: fz-yaml\nstages: [__proto__, constructor]\ninitial_stage: __proto__\ntransitions:\n  __proto__: [constructor]\n  constructor: []\n",
  "%YAML 9.9\n---\nid: x\n",
  "--- |\n  text\n...\n--- second doc\n",
  "",
  "null",
  "- a\n- b\n",
  "id: fz-yaml\nstages: []\n",
);
const yamlDoc = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(YAML_SNIPPETS, fc.array(oddString, { maxLength: 3 })).map(([y, junk]) => ({ text: `${y}${junk.map((j) => `\n${j}`).join("")}`, note: `yaml snippet + ${junk.length} junk line(s)` })) },
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 15_000 }).map((n) => ({ text: `id: fz-deep\nstages: ${"[".repeat(n)}${"]".repeat(n)}\n`, note: `yaml flow sequence ${n} deep` })) },
  // (n levels of indentation take n² characters: 900 levels are ~0.8 MB)
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 900 }).map((n) => ({ text: Array.from({ length: n }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n"), note: `yaml block mapping ${n} deep` })) },
  { weight: 1, arbitrary: fc.integer({ min: 501, max: 5_000 }).map((n) => ({ text: `id: fz-many\nstages: [${Array.from({ length: n }, (_, i) => `S${i}`).join(", ")}]\ninitial_stage: S0\ntransitions: {}\n`, note: `yaml ${n} stages` })) },
);
const flowJson = fc.oneof(
  fc.record({
    id: fc.oneof(fc.constantFrom("fz-json", "fz-json-2"), oddString),
    stages: fc.oneof(fc.array(STATE_NAMES, { maxLength: 6 }), nonArray),
    initial_stage: fc.oneof(STATE_NAMES, nonString),
    transitions: fc.oneof(fc.dictionary(STATE_NAMES, fc.array(STATE_NAMES, { maxLength: 3 }), { maxKeys: 4 }), nonObject),
  }),
  fc.dictionary(fc.oneof(fc.constantFrom("id", "stages", "initial_stage", "transitions", "validators", "parents", "keywords", "__proto__"), oddString), anyValue, { maxKeys: 6 }),
);
const workflowDef = fc
  .oneof(
    { weight: 5, arbitrary: mermaidDoc.map((d) => ({ body: { mermaid: d.text } as Record<string, J>, note: d.note })) },
    { weight: 4, arbitrary: yamlDoc.map((d) => ({ body: { yaml: d.text } as Record<string, J>, note: d.note })) },
    { weight: 2, arbitrary: flowJson.map((j) => ({ body: { json: j } as Record<string, J>, note: "json object" })) },
    { weight: 2, arbitrary: flowJson.map((j) => ({ body: { json: toJson(j) } as Record<string, J>, note: "json text" })) },
    { weight: 1, arbitrary: deep.map((d) => ({ body: { json: new Raw(`{"stages":${d.text}}`) } as Record<string, J>, note: `json object nested ${d.text.length >> 1} deep` })) },
    // the json field as text goes through the YAML parser: deep flow collections are slow there (~0.5 s at 100k)
    { weight: 1, arbitrary: fc.integer({ min: 5_000, max: 12_000 }).map((n) => ({ body: { json: deepText(n, "array") } as Record<string, J>, note: `json text nested ${n} deep` })) },
  )
  .chain(({ body, note }) => fc.option(fc.oneof(fc.constantFrom("fz-flow", "fz-other"), oddString.filter((s) => s.length <= 63)), { nil: undefined }).map((id) => ({ body: id === undefined ? body : { ...body, id }, note })));

const uploadFile = fc.oneof(
  { weight: 12, arbitrary: fc.tuple(fc.constantFrom("a.md", "b.markdown", "c.txt", "d.html", "e.htm", "F.MD", "g.text"), fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: "binary", maxLength: 300 }), oddString)).map(([n, c]) => new File([c], n)) },
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom("bytes.md", "bytes.txt"), fc.uint8Array({ maxLength: 2_000 })).map(([n, b]) => new File([b], n)) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom("u16.md", "u16.txt"), fc.string({ maxLength: 200 })).map(([n, s]) => new File([Buffer.from(`\uFEFF# ${s}`, "utf16le")], n)) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.constantFrom("bad.md", "bad.txt"), fc.string({ maxLength: 200 }), fc.integer({ min: 0, max: BAD_UTF8.length - 1 }))
      .map(([n, s, w]) => new File([Buffer.concat([Buffer.from(`# Title ${s}\n\n`), Buffer.from(BAD_UTF8[w]!), Buffer.from(" words after")])], n)),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      () => new File(["---\ntitle: [unclosed\n---\n# Body words"], "fm.md"),
      () => new File(["---\n---\n---"], "fm2.md"),
      () => new File([`<html><head><title>${"t".repeat(10_000)}</title><script>alert(1)</script></head><body><p>words</p></body></html>`], "x.html"),
      () => new File([`${"<div>".repeat(20_000)}deep`], "deep.html"),
      () => new File([`<title>${"<b>".repeat(20_000)}T</title><p>words</p>`], "deep-title.html"),
      () => new File([`${"#".repeat(7)} h\n${"> ".repeat(5_000)}quote`], "deep.md"),
      () => new File([`| a |\n${"|---".repeat(5_000)}|\n`], "table.md"),
    ).map((f) => f()),
  },
  { weight: 3, arbitrary: fc.tuple(oddString, fc.string({ maxLength: 100 })).map(([n, c]) => new File([c], `${n}.md`)) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1_000, max: 100_000 }), fc.constantFrom("a ", "é ", "😀", "\u0000", "<p>")).map(([n, ch]) => new File([ch.repeat(n)], "huge.txt")) },
);
/** at the 2 MB document limit, either side (one such document takes a second or two to chunk and index, so just these two) */
const atLimit = (over: boolean) => {
  const form = new FormData();
  form.append("file", new File([`# Big\n\n${"word ".repeat(Math.floor((2 * 1024 * 1024 + (over ? 1_000 : -1_000)) / 5))}`], "big.md"));
  return form;
};
const uploads = fc.oneof(
  { weight: 4, arbitrary: fc.array(uploadFile, { minLength: 1, maxLength: 3 }).map((files): Body => {
    const form = new FormData();
    for (const f of files) form.append("file", f);
    return { data: form, note: `upload ${files.map((f) => `${JSON.stringify(f.name.slice(0, 30))}(${f.size})`).join(", ")}` };
  }) },
  { weight: 2, arbitrary: fc.record({ title: fc.option(fc.oneof(fc.string({ maxLength: 40 }), oddString), { nil: undefined }), source: fc.option(fc.oneof(fc.constantFrom("x.md", "y.txt", "https://example.com/a.html", "z.pdf"), oddString), { nil: undefined }), type: fc.option(fc.constantFrom("markdown", "text", "html", "md", "pdf"), { nil: undefined }), content: fc.oneof(fc.string({ maxLength: 200 }), oddString, hugeString, fc.constant(`<p>a</p>${"<div>".repeat(20_000)}deep`)) }).map((b): Body => ({ data: JSON.stringify(Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined))), type: "application/json", note: "JSON import" })) },
);

let exportDoc: RunExport;
/** an export of a seeded run, changed in one place deep inside (maybe still valid: then it imports) */
function importMutation(): fc.Arbitrary<{ doc: string; note: string; qs: string }> {
  const paths: [string, fc.Arbitrary<J>][] = [
    ["run.context", fc.oneof(anyValue, deep)],
    ["run.input", fc.oneof(anyValue, deep)],
    ["run.snapshot", fc.oneof(anyValue, deep.map((d) => new Raw(`{"a":${d.text}}`)))],
    ["run.status", fc.oneof(oddString, fc.constantFrom("running", "completed", "failed"))],
    ["run.state", fc.oneof(nonArray, fc.array(oddString, { maxLength: 3 }))],
    ["run.seq", fc.oneof(nonNumber, fc.constantFrom(-1, 0, 1.5, 9_999))],
    ["run.id", fc.oneof(oddString, fakeId, longString(151))],
    ["run.parentId", fc.oneof(oddString, fakeId, fc.constant(null))],
    ["run.createdAt", fc.oneof(oddString, fc.constantFrom("2026-02-30T00:00:00Z", "2026-11-23T10:00:00+99:00", "not a date"))],
    ["run.entered", fc.oneof(anyValue, fc.constant({ A: new Raw("1e400") }))],
    ["transitions.0.seq", fc.oneof(nonNumber, fc.constantFrom(2, 0))],
    ["transitions.0.payload", fc.oneof(anyValue, deep)],
    ["transitions.0.runId", fc.oneof(oddString, fakeId)],
    ["transitions", fc.oneof(nonArray, fc.constant([]))],
    ["reviews.0.id", fc.oneof(oddString, fc.constant(""))],
    ["reviews.0.payload", fc.oneof(anyValue, deep)],
    ["timers", fc.oneof(nonArray, fc.constant([{ runId: "x", id: "t", dueAt: "2026-11-23T00:00:00Z", event: { type: "X" }, seq: 1 }]))],
    ["artifacts", fc.oneof(nonArray, fc.constant([{ name: "a\u0000b", content: "x", size: 1, updatedAt: "2026-11-23T00:00:00Z" }]), fc.constant([{ name: "b.bin", encoding: "base64", content: "!!!", size: 1, updatedAt: "2026-11-23T00:00:00Z" }]), fc.constant([{ name: "c.txt", content: "x", size: -1, updatedAt: "2026-11-23T00:00:00Z" }]))],
    ["snapshots.0.context", fc.oneof(anyValue, deep)],
    ["usage", fc.oneof(nonArray, fc.constant([{}]))],
    ["children", fc.oneof(nonArray, fc.array(oddString, { maxLength: 3 }))],
    ["zz_extra", anyValue],
  ];
  return fc.tuple(fc.constantFrom(...paths), fc.constantFrom("", "?as=new")).chain(([[p, arb], qs]) =>
    arb.map((v) => {
      const doc = structuredClone(exportDoc) as unknown as Record<string, J>;
      const keys = p.split(".");
      let at: Record<string, J> | J[] = doc;
      for (const k of keys.slice(0, -1)) at = (at as Record<string, J>)[k] as Record<string, J>;
      const last = keys.at(-1)!;
      if (at && typeof at === "object") Object.defineProperty(at, last, { value: v, enumerable: true, writable: true, configurable: true });
      return { doc: toJson(doc), note: `export with ${p} = ${describeValue(v instanceof Raw ? `raw ${v.text.slice(0, 30)}… (${v.text.length} chars)` : JSON.stringify(v) ?? "undefined")}`, qs };
    }),
  );
}

// ---------------------------------------------------------------------------- the database

let rt: Runtime;
/**
 * Tables left out of the digest and the write log: RunText* (the FTS5 index of "Run" and its
 * shadow tables, written only by triggers on "Run", which is compared itself) and sqlite_*
 * (SQLite's own). No table is excluded for GETs: none writes today (the write log would fail
 * the test). The one GET that could — the first use of the knowledge store seeds the shipped
 * guide into KnowledgeDocument/KnowledgeChunk — is made to happen in the setup, before the batch.
 */
/** full-text indexes (FTS5 tables and their shadow tables): derived from the tables they index */
const TABLE_SKIP = /^(RunText|CmText|sqlite_)/;

function tables(): string[] {
  return (rt.sqlite!.db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string }[]).map((r) => r.name).filter((n) => !TABLE_SKIP.test(n));
}

/** table → sha256 of its rows in rowid order */
function digest(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const t of tables()) {
    const h = createHash("sha256");
    for (const row of rt.sqlite!.db.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).safeIntegers(true).raw().iterate() as Iterable<unknown[]>) {
      h.update(JSON.stringify(row, (_k, v) => (typeof v === "bigint" ? `${v}n` : v && typeof v === "object" && (v as { type?: string }).type === "Buffer" ? Buffer.from((v as { data: number[] }).data).toString("base64") : v)));
      h.update("\n");
    }
    out[t] = h.digest("hex");
  }
  return out;
}
const changedTables = (a: Record<string, string>, b: Record<string, string>) => [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((t) => a[t] !== b[t]).sort();

/**
 * Which tables each request wrote: TEMP triggers (this connection only, never stored in the
 * database file) log every committed insert, update and delete of every table into a TEMP
 * table; a rolled-back write leaves no entry. The app has one SQLite connection, so nothing escapes.
 */
function installWriteLog(): void {
  const db = rt.sqlite!.db;
  db.exec(`CREATE TEMP TABLE IF NOT EXISTS "fuzz_writes" ("tbl" TEXT NOT NULL)`);
  for (const t of tables()) {
    for (const op of ["INSERT", "UPDATE", "DELETE"]) db.exec(`CREATE TEMP TRIGGER IF NOT EXISTS "fuzz_${t}_${op}" AFTER ${op} ON main."${t}" BEGIN INSERT INTO "fuzz_writes" VALUES ('${t}'); END`);
  }
}
let writesStmt: { all(): unknown[] } | null = null;
let clearStmt: { run(): unknown } | null = null;
/** the tables written since the last call */
function takeWrites(): string[] {
  writesStmt ??= rt.sqlite!.db.prepare(`SELECT DISTINCT "tbl" FROM temp."fuzz_writes" ORDER BY 1`).pluck();
  clearStmt ??= rt.sqlite!.db.prepare(`DELETE FROM temp."fuzz_writes"`);
  const out = writesStmt.all() as string[];
  if (out.length) clearStmt.run();
  return out;
}

// ---------------------------------------------------------------------------- sending

interface Tally {
  /** the slowest requests: ms and what they were */
  slow: [number, string][];
  /** ms spent per route handler */
  time: Record<string, number>;
  sent: number;
  byClass: Record<string, number>;
  byStatus: Record<number, number>;
  routes: Set<string>;
}
const newTally = (): Tally => ({ slow: [], time: {}, sent: 0, byClass: {}, byStatus: {}, routes: new Set() });
const failures: string[] = [];
const unhandled: unknown[] = [];

function preview(c: Case): string {
  const b = c.body;
  const body =
    b === undefined
      ? "none"
      : typeof b === "string"
        ? b.length > 200
          ? `${JSON.stringify(b.slice(0, 160))}… (${b.length} chars)`
          : JSON.stringify(b)
        : b instanceof Uint8Array
          ? `${b.length} bytes: ${Buffer.from(b.subarray(0, 120)).toString("hex")}${b.length > 120 ? "…" : ""}`
          : `FormData`;
  const headers = Object.entries(c.headers)
    .map(([k, v]) => `${k}: ${v.length > 60 ? `${v.slice(0, 40)}… (${v.length} chars)` : v}`)
    .join("; ");
  const p = c.path.length > 200 ? `${c.path.slice(0, 160)}… (${c.path.length} chars)` : c.path;
  return `${c.method} ${p} [${c.note}] headers {${headers}} body ${body}`;
}

function fail(phase: string, index: number, c: Case, what: string) {
  if (failures.length < 40) failures.push(`${phase} #${index} (seed ${SEED}): ${what}\n    ${preview(c)}`);
  else if (failures.length === 40) failures.push("… more failures left out");
}

interface Outcome {
  status: number;
  body: unknown;
  /** tables the request wrote */
  writes: string[];
}

async function send(c: Case, tally: Tally): Promise<Outcome | null> {
  const fn = modules[c.route]?.[c.method];
  if (!fn) throw new Error(`no ${c.method} handler in ${c.route}`);
  const ac = new AbortController();
  const req = new Request(`http://localhost${c.path}`, { method: c.method, headers: c.headers, body: c.body as BodyInit | undefined, signal: ac.signal });
  const leftover = takeWrites();
  if (leftover.length) throw new Error(`the database was written between requests (${leftover.join(", ")}): something runs in the background`);
  const t0 = performance.now();
  let res: Response;
  try {
    res = await fn(req, { params: Promise.resolve(c.params ?? {}) });
  } catch (e) {
    return { status: -1, body: e instanceof Error ? `${e.name}: ${e.message}` : String(e), writes: takeWrites() };
  }
  tally.sent++;
  tally.routes.add(`${c.method} ${c.route}`);
  const cls = `${Math.floor(res.status / 100)}xx`;
  tally.byClass[cls] = (tally.byClass[cls] ?? 0) + 1;
  tally.byStatus[res.status] = (tally.byStatus[res.status] ?? 0) + 1;
  let body: unknown = null;
  if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    ac.abort();
    await res.body?.cancel();
  } else {
    const text = await res.text();
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text.slice(0, 200);
    }
  }
  const ms = performance.now() - t0;
  tally.time[`${c.method} ${c.route}`] = (tally.time[`${c.method} ${c.route}`] ?? 0) + ms;
  if (tally.slow.length < 5 || ms > tally.slow.at(-1)![0]) {
    tally.slow.push([ms, `${c.method} ${c.route} ${res.status} [${c.note.slice(0, 80)}]`]);
    tally.slow.sort((a, b) => b[0] - a[0]);
    tally.slow.length = Math.min(tally.slow.length, 5);
  }
  return { status: res.status, body, writes: takeWrites() };
}

function checkResponse(phase: string, i: number, c: Case, out: Outcome | null): boolean {
  if (!out) return false;
  if (out.status === -1) {
    fail(phase, i, c, `the handler threw: ${out.body}`);
    return false;
  }
  if (out.status >= 500) {
    fail(phase, i, c, `status ${out.status}: ${JSON.stringify(out.body).slice(0, 300)}`);
    return false;
  }
  if (out.status >= 400) {
    const e = (out.body as { error?: unknown } | null)?.error;
    if (typeof e !== "string") {
      fail(phase, i, c, `status ${out.status} without a JSON error message: ${JSON.stringify(out.body).slice(0, 200)}`);
      return false;
    }
  }
  return true;
}

/** one line: requests sent, by status class and by status */
const summary = (t: Tally) =>
  `${t.sent} requests over ${t.routes.size} route handlers: ${Object.entries(t.byClass)
    .sort()
    .map(([k, n]) => `${k} ${n}`)
    .join(", ")} (${Object.entries(t.byStatus)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([s, n]) => `${s}×${n}`)
    .join(" ")})`;
/** where the time went */
const timing = (t: Tally) =>
  `most time: ${Object.entries(t.time)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([r, ms]) => `${r} ${(ms / 1000).toFixed(1)} s`)
    .join(", ")}; slowest: ${t.slow.map(([ms, what]) => `${Math.round(ms)} ms ${what}`).join(" | ")}`;

// ---------------------------------------------------------------------------- setup: a seeded database

let receiver: http.Server;
const onUnhandled = (e: unknown) => void unhandled.push(e);

async function call(route: string, method: Method, init: { path?: string; body?: unknown; params?: Params } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const req = new Request(`http://localhost${init.path ?? route}`, {
    method,
    ...(init.body !== undefined ? { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body), headers: { "content-type": "application/json" } } : {}),
  });
  const res = await modules[route]![method]!(req, { params: Promise.resolve(init.params ?? {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {} };
}

/** Wait until nothing writes to the database for a while (effects, webhook deliveries, the workflows' services' chores such as the Context Manager's outbox). */
async function quiesce() {
  await rt.webhooks.idle();
  await Promise.all(rt.services.chores().map((c) => c.chore.run()));
  await rt.services.idle();
  takeWrites();
  for (let stable = 0; stable < 4; ) {
    await new Promise((r) => setTimeout(r, 75));
    await rt.webhooks.idle();
    stable = takeWrites().length === 0 ? stable + 1 : 0;
  }
}

beforeAll(async () => {
  process.on("unhandledRejection", onUnhandled);
  process.on("uncaughtException", onUnhandled);
  await migrateDatabase(url);
  for (const [route, load] of Object.entries(ROUTE_MODULES)) modules[route] = (await load()) as RouteModule;
  rt = await (await import("../lib/runtime")).getRuntime();
  installWriteLog();
  await rt.knowledgeReady(); // the guide is seeded on first use: do it now, not during the batch

  receiver = http.createServer((req, res) => {
    req.resume();
    res.writeHead(204).end();
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const port = (receiver.address() as AddressInfo).port;
  const hook = await call("/api/webhooks", "POST", { body: { workflow: "*", url: `http://127.0.0.1:${port}/hook`, secret: "fuzz-secret-0123456789", events: ["on_transition"] } });
  expect(hook.status).toBe(201);
  const webhookId = (hook.body.webhook as { id: string }).id;

  // a run decided (waiting in IDLE), a run waiting for review, an aborted run
  const request = "Write a TypeScript function that parses ISO dates";
  const decided = (await rt.engine.start("swiss-army", { request })).run.id;
  const review = await rt.engine.waitFor(decided, inState("HUMAN_REVIEW"));
  await rt.engine.decide(review.reviewId!, { decision: "approve", feedback: "ok", reviewer: "fuzz" });
  await rt.engine.waitFor(decided, (r) => r.state.includes("IDLE") && r.status === "waiting");
  const pending = (await rt.engine.start("swiss-army", { request })).run.id;
  const pendingView = await rt.engine.waitFor(pending, inState("HUMAN_REVIEW"));
  const aborted = (await rt.engine.start("swiss-army", {})).run.id;
  await rt.engine.abort(aborted, "fuzz setup");
  const put = rt.sqlite!.db.prepare(`INSERT INTO "Artifact" ("runId","name","content","size","updatedAt") VALUES (?,?,?,?,?)`);
  put.run(decided, "notes/summary.md", "# Summary\n", 10, "2026-01-01T00:00:01.000+00:00");
  put.run(decided, "bin/blob.dat", Buffer.from([0xff, 0xfe, 0x00]), 3, "2026-01-01T00:00:02.000+00:00");
  exportDoc = await exportRun(rt, decided);
  const imported = await call("/api/runs/import", "POST", { body: exportDoc });
  expect(imported.status).toBe(201);

  const rule = await call("/api/alerts/rules", "POST", { body: { workflow: "swiss-army", state: "HUMAN_REVIEW", metric: "waiting", threshold: 3_600_000 } });
  expect(rule.status).toBe(201);
  expect((await call("/api/profile", "PUT", { body: { key: "fuzz_real_fact", value: "42", domain: "sleep" } })).status).toBe(200);
  const doc = await call("/api/knowledge", "POST", { body: { title: "Fuzz notes", content: "# Fuzz notes\n\nHostile input must never reach the database." } });
  expect(doc.status).toBe(201);
  const flow = await call("/api/workflows", "POST", { body: { mermaid: "stateDiagram-v2\n  [*] --> DRAFT\n  DRAFT --> REVIEW\n  REVIEW --> [*]\n", id: "fuzz-flow" } });
  expect(flow.status).toBe(201);

  await quiesce();
  expect(await rt.db.webhookDelivery.count({ where: { status: { not: "delivered" } } })).toBe(0);
  const deliveries = await call("/api/webhooks/[id]/deliveries", "GET", { path: `/api/webhooks/${webhookId}/deliveries`, params: { id: webhookId } });
  const reviews = await rt.store.listReviews({ limit: 100 });
  ids = {
    runs: [decided, pending, aborted, imported.body.id as string],
    reviews: [pendingView.reviewId!, ...reviews.map((r) => r.id)],
    webhooks: [webhookId],
    deliveries: (deliveries.body.deliveries as { id: string }[]).map((d) => d.id),
    rules: [(rule.body.rule as { id: string }).id],
    documents: [(doc.body.document as { id: string }).id],
    workflows: ["swiss-army", "deep-research", "domain-agent", "processing-modes", "conversation", "fuzz-flow"],
  };
  expect(ids.deliveries.length).toBeGreaterThan(0);
}, 60_000);

afterAll(async () => {
  process.off("unhandledRejection", onUnhandled);
  process.off("uncaughtException", onUnhandled);
  await rt?.close();
  if (receiver) await new Promise((r) => receiver.close(r));
});

// ---------------------------------------------------------------------------- the tests

describe("hostile input", () => {
  it("covers every route handler", () => {
    expect(Object.keys(ROUTE_MODULES).sort()).toEqual(routeFiles());
    const methods = phaseA().map((e) => `${e.method} ${e.route}`);
    for (const [route, mod] of Object.entries(modules)) {
      for (const m of ["GET", "POST", "PUT", "DELETE", "PATCH"] as const) if (DECLARED.has(route) ? DECLARED.get(route)!.includes(m) : mod[m]) expect(methods, `${m} ${route} is fuzzed`).toContain(`${m} ${route}`);
    }
  });

  it(
    "phase A: >10,000 hostile requests: no 5xx, JSON errors, mutating requests all rejected, the database unchanged",
    async () => {
      const started = performance.now();
      const tally = newTally();
      const endpoints = phaseA();
      const before = digest();
      let n = 0;
      let genMs = 0;
      for (const [k, ep] of endpoints.entries()) {
        const g0 = performance.now();
        const cases = fc.sample(ep.cases, { seed: SEED + k, numRuns: ep.count });
        genMs += performance.now() - g0;
        for (const c of cases) {
          const i = n++;
          const out = await send(c, tally);
          if (!checkResponse("A", i, c, out) || !out) continue;
          if (c.method !== "GET" && out.status < 400 && !ep.alwaysOk) fail("A", i, c, `a hostile ${c.method} was accepted (${out.status}): ${JSON.stringify(out.body).slice(0, 200)}`);
          if (out.writes.length) fail("A", i, c, `${out.status} response, and it wrote to ${out.writes.join(", ")}`);
        }
      }
      const after = digest();
      console.log(`[fuzz] phase A, seed ${SEED}: ${summary(tally)}`);
      console.log(`[fuzz] phase A took ${((performance.now() - started) / 1000).toFixed(1)} s (generating ${(genMs / 1000).toFixed(1)} s, in handlers ${(Object.values(tally.time).reduce((a, b) => a + b, 0) / 1000).toFixed(1)} s); ${timing(tally)}`);
      expect(failures, `${failures.length} failure(s); replay with FUZZ_SEED=${SEED} npx vitest run test/fuzz-api.test.ts\n${failures.join("\n")}`).toEqual([]);
      expect(unhandled.map(String)).toEqual([]);
      expect(tally.sent).toBeGreaterThanOrEqual(10_000);
      expect(changedTables(before, after), "tables changed by the hostile batch").toEqual([]);
    },
    600_000, // a guard against a hang, not a speed test: 10,000 requests take minutes on a busy machine
  );

  it(
    "phase B: workflow definitions, uploads and run imports: no 5xx; rejected ones change nothing; accepted ones write only their own tables",
    async () => {
      const started = performance.now();
      const tally = newTally();
      failures.length = 0;
      const endpoints: { route: string; method: Method; count: number; cases: fc.Arbitrary<Case>; writes: string[]; extra?: Case[] }[] = [
        {
          route: "/api/workflows",
          method: "POST",
          count: 300,
          writes: ["FlowDefinition"],
          cases: fc.tuple(workflowDef, sameSiteHeaders).map(([{ body, note }, headers]) => ({ route: "/api/workflows", method: "POST" as const, path: "/api/workflows", headers: { ...headers, "content-type": "application/json" }, body: toJson(body), note })),
        },
        {
          route: "/api/knowledge",
          method: "POST",
          count: 200,
          writes: ["KnowledgeDocument", "KnowledgeChunk"],
          cases: fc.tuple(uploads, sameSiteHeaders).map(([b, headers]) => ({ route: "/api/knowledge", method: "POST" as const, path: "/api/knowledge", headers: b.type ? { ...headers, "content-type": b.type } : headers, body: b.data, note: b.note })),
          extra: [false, true].map((over) => ({ route: "/api/knowledge", method: "POST" as const, path: "/api/knowledge", headers: {}, body: atLimit(over), note: `a document ${over ? "just over" : "just under"} 2 MB` })),
        },
        {
          route: "/api/runs/import",
          method: "POST",
          count: 200,
          writes: ["Run", "Transition", "Review", "Snapshot", "Timer", "Artifact", "ModelCall"],
          cases: fc.tuple(importMutation(), sameSiteHeaders).map(([m, headers]) => ({ route: "/api/runs/import", method: "POST" as const, path: `/api/runs/import${m.qs}`, headers: { ...headers, "content-type": "application/json" }, body: m.doc, note: m.note })),
        },
      ];
      let accepted = 0;
      let n = 0;
      for (const [k, ep] of endpoints.entries()) {
        for (const c of [...fc.sample(ep.cases, { seed: SEED + 1_000 + k, numRuns: ep.count }), ...(ep.extra ?? [])]) {
          const i = n++;
          const out = await send(c, tally);
          if (!checkResponse("B", i, c, out) || !out) continue;
          if (out.status >= 400 && out.writes.length) fail("B", i, c, `rejected (${out.status}), but it wrote to ${out.writes.join(", ")}`);
          if (out.status < 400) {
            accepted++;
            const foreign = out.writes.filter((t) => !ep.writes.includes(t));
            if (foreign.length) fail("B", i, c, `accepted, and wrote to ${foreign.join(", ")} too`);
          }
        }
      }
      console.log(`[fuzz] phase B, seed ${SEED}: ${summary(tally)}, ${accepted} accepted`);
      console.log(`[fuzz] phase B took ${((performance.now() - started) / 1000).toFixed(1)} s; ${timing(tally)}`);
      expect(failures, `${failures.length} failure(s); replay with FUZZ_SEED=${SEED} npx vitest run test/fuzz-api.test.ts\n${failures.join("\n")}`).toEqual([]);
      expect(unhandled.map(String)).toEqual([]);
    },
    300_000, // (a guard, as above)
  );
});
