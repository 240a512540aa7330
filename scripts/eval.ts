// npm run eval -- --url U [--token T] --workflow X (--version N | --file candidate.yaml) [--min-agreement 0.9]
// Evaluates a candidate against the decisions a Switchyard server's reviewers made (POST /api/evals),
// waits for the report, prints agreement per review state and the regressions (each a link to the
// compare view), and exits 1 when the agreement is below --min-agreement: a gate for a team's CI.
// Exit 2: bad arguments, or the server refused or could not be reached.
import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import { parseArgs } from "node:util";

interface Report {
  id: string;
  status: "running" | "done";
  workflow: string;
  candidate: { version: number | null };
  cases: number;
  done: number;
  byState: Record<string, { cases: number; agree: number; agreement: number | null }>;
  agreement: number | null;
  regressions: { runId: string; replayId: string | null; state: string; decision: string; reason: string }[];
  skipped: { runId: string; state: string; decision: string }[];
  tokens: number;
  ms: number;
  equality: { json: string; text: string };
}

const USAGE = "usage: npm run eval -- --url <server> [--token <sy_…>] --workflow <id> (--version <n> | --file <candidate.yaml|.json|.mmd>) [--min-agreement 0.9] [--since YYYY-MM-DD] [--limit n] [--timeout-s 600]";

function fail(message: string, code = 2): never {
  console.error(message);
  process.exit(code);
}

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== "--"),
  options: {
    url: { type: "string" },
    token: { type: "string" },
    workflow: { type: "string" },
    version: { type: "string" },
    file: { type: "string" },
    "min-agreement": { type: "string" },
    since: { type: "string" },
    limit: { type: "string" },
    "timeout-s": { type: "string" },
  },
});
if (!values.url || !values.workflow || (!values.version && !values.file) || (values.version && values.file)) fail(USAGE);
const base = values.url.replace(/\/+$/, "");
const min = values["min-agreement"] === undefined ? null : Number(values["min-agreement"]);
if (min !== null && !(min >= 0 && min <= 1)) fail(`--min-agreement must be a number from 0 to 1; got ${values["min-agreement"]}`);
const timeoutMs = Number(values["timeout-s"] ?? 600) * 1000;

let candidate: Record<string, unknown>;
if (values.version) {
  const v = Number(values.version);
  if (!Number.isInteger(v) || v < 1) fail(`--version must be a whole number from 1; got ${values.version}`);
  candidate = { version: v };
} else {
  const ext = extname(values.file!).toLowerCase();
  const format = ext === ".json" ? "json" : ext === ".mmd" || ext === ".mermaid" ? "mermaid" : ext === ".yaml" || ext === ".yml" ? "yaml" : null;
  if (!format) fail(`--file must be .yaml, .yml, .json or .mmd; got ${values.file}`);
  candidate = { definition: { [format]: await readFile(values.file!, "utf8").catch((e) => fail(`cannot read ${values.file}: ${(e as Error).message}`)) } };
}

const headers: Record<string, string> = { "content-type": "application/json", ...(values.token ? { authorization: `Bearer ${values.token}` } : {}) };
async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    fail(`cannot reach ${base}: ${(e as Error).message}`);
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: reported below
  }
  if (!res.ok) fail(`${method} ${path} answered ${res.status}: ${(json as { error?: string } | null)?.error ?? text.slice(0, 300)}`);
  return json;
}

const cases = { from: "decided-reviews", ...(values.since ? { since: values.since } : {}), ...(values.limit ? { limit: Number(values.limit) } : {}) };
const { id } = (await call("POST", "/api/evals", { workflow: values.workflow, candidate, cases })) as { id: string };
const deadline = Date.now() + timeoutMs;
let report = (await call("GET", `/api/evals/${id}`)) as Report;
while (report.status !== "done") {
  if (Date.now() > deadline) fail(`evaluation ${id} is still running after ${timeoutMs / 1000} s (${report.done} of ${report.cases} cases): see ${base}/evals/${id}`);
  await new Promise((r) => setTimeout(r, 500));
  report = (await call("GET", `/api/evals/${id}`)) as Report;
}

const pct = (x: number | null) => (x === null ? "—" : `${(x * 100).toFixed(1)}%`);
const rows = Object.entries(report.byState).map(([state, s]) => [state, String(s.cases), String(s.agree), pct(s.agreement)]);
const table = [["state", "cases", "agree", "agreement"], ...rows, ["all", String(report.done), String(Object.values(report.byState).reduce((n, s) => n + s.agree, 0)), pct(report.agreement)]];
const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
console.log(`evaluation ${id}: ${report.workflow} ${report.candidate.version === null ? "(candidate definition)" : `v${report.candidate.version}`}`);
for (const [i, r] of table.entries()) {
  console.log(r.map((c, j) => (j === 0 ? c.padEnd(widths[j]!) : c.padStart(widths[j]!))).join("  "));
  if (i === 0 || i === table.length - 2) console.log(widths.map((w) => "-".repeat(w)).join("  "));
}
if (report.skipped.length) console.log(`skipped (not cases): ${report.skipped.map((s) => `${s.decision} at ${s.state}`).join(", ")}`);
for (const r of report.regressions) console.log(`regression: ${r.state} ${r.decision} (${r.reason}) ${r.replayId ? `${base}/runs/${r.runId}/compare/${r.replayId}` : `${base}/runs/${r.runId}`}`);
console.log(`equal: text by ${report.equality.text}; JSON by ${report.equality.json}. ${report.tokens} tokens, ${(report.ms / 1000).toFixed(1)} s.`);
if (min !== null) {
  if (report.agreement === null) fail(`no cases to score: agreement unknown, below --min-agreement ${min}`, 1);
  if (report.agreement < min) fail(`agreement ${pct(report.agreement)} is below --min-agreement ${pct(min)}`, 1);
  console.log(`agreement ${pct(report.agreement)} ≥ ${pct(min)}: pass`);
}
