// What the CLI prints: plain lines for people, JSON for scripts (--json), and the exit codes.
import { SwitchyardError } from "./errors.js";
import type { Review, Run, Schedule, Transition } from "./types.js";

/**
 * Exit codes (README.md, "Command line"): 0 done; 1 an unexpected error or a server error (5xx);
 * 2 a usage error; 3 not found (404); 4 refused (400, 409, 413, 415, 422: the server's message
 * says why); 5 not signed in or not allowed (401, 403); 6 the server cannot be reached;
 * 7 `workflows validate` found errors; 8 the watched run failed; 9 the watched run was aborted.
 */
export const EXIT = { ok: 0, error: 1, usage: 2, notFound: 3, refused: 4, auth: 5, unreachable: 6, invalid: 7, runFailed: 8, runAborted: 9 } as const;

export class UsageError extends Error {}

export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  json: boolean;
}

/** The exit code for an error a command threw, after saying what it was on stderr. */
export function failure(io: Io, e: unknown): number {
  if (e instanceof UsageError) {
    io.err(`switchyard: ${e.message}`);
    io.err("run `switchyard --help` for the commands");
    return EXIT.usage;
  }
  if (e instanceof SwitchyardError) {
    if (io.json) io.err(JSON.stringify({ error: e.message, code: e.code, status: e.status, ...(e.issues.length ? { issues: e.issues } : {}) }));
    else {
      io.err(`switchyard: ${e.message}${e.status ? ` (${e.status} ${e.code})` : ""}`);
      for (const i of e.issues) io.err(`  ${i.path || "body"}: ${i.message}`);
      const lines = (e.body as { details?: { issues?: { message: string; line?: number }[] } } | null)?.details?.issues ?? [];
      for (const i of lines) io.err(`  ${i.line ? `line ${i.line}: ` : ""}${i.message}`);
    }
    if (e.status === 0) return EXIT.unreachable;
    if (e.status === 404 || e.status === 410) return EXIT.notFound;
    if (e.status === 401 || e.status === 403) return EXIT.auth;
    if (e.status >= 400 && e.status < 500) return EXIT.refused;
    return EXIT.error;
  }
  io.err(`switchyard: ${e instanceof Error ? e.message : String(e)}`);
  return EXIT.error;
}

export const short = (id: string) => (id.length > 12 ? id.slice(0, 8) : id);
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const oneLine = (v: unknown) => clip(typeof v === "string" ? v.replace(/\s+/g, " ") : JSON.stringify(v) ?? "", 200);
const when = (iso: string | null | undefined) => (iso ? iso.replace("T", " ").replace(/\.\d+Z$/, "Z") : "—");

/** Rows as columns separated by two spaces, each as wide as its widest cell. */
export function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length))) ?? [];
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd());
}

/** Why a failed run failed: its error, else (a user workflow whose step failed into an on_error stage) the last step error in its context. */
export function failureOf(run: Pick<Run, "error" | "context">): string | null {
  const err = run.error as { message?: unknown } | null;
  if (err && typeof err === "object" && typeof err.message === "string") return err.message;
  const steps = ((run.context ?? {}) as { steps?: Record<string, { error?: { message?: unknown }; at?: number } | null> }).steps ?? {};
  const failed = Object.entries(steps)
    .filter(([, s]) => typeof s?.error?.message === "string")
    .sort(([, a], [, b]) => (a!.at ?? 0) - (b!.at ?? 0));
  const last = failed.at(-1);
  return last ? `${last[0]}: ${String(last[1]!.error!.message)}` : err ? JSON.stringify(err) : null;
}

export const where = (run: Pick<Run, "status" | "state">) => `${run.status}${run.state.length ? ` in ${run.state.join(", ")}` : ""}`;

/** A run just started: its id, workflow, name and where it is. */
export const started = (run: Pick<Run, "id" | "workflow" | "name" | "status" | "state">) => `started ${run.id} (${run.workflow}${run.name ? `: ${run.name}` : ""}) ${where(run)}`;

export function runLines(run: Run): string[] {
  const rows = [
    ["run", run.id],
    ["name", run.name ?? "—"],
    ["workflow", run.workflow],
    ["status", where(run)],
    ...(run.accepted?.length ? [["accepts", run.accepted.join(", ")]] : []),
    ...(run.reviewId ? [["review", run.reviewId]] : []),
    ["created", when(run.createdAt)],
    ...(run.finishedAt ? [["finished", when(run.finishedAt)]] : []),
    ...(run.output !== null && run.output !== undefined ? [["output", oneLine(run.output)]] : []),
    ...(run.status === "failed" || run.error ? [["error", oneLine(failureOf(run) ?? "—")]] : []),
  ];
  return table(rows);
}

export function runRows(runs: Omit<Run, "context">[]): string[] {
  if (!runs.length) return ["no runs"];
  return table([["ID", "STATUS", "WORKFLOW", "NAME", "CREATED"], ...runs.map((r) => [r.id, where(r), r.workflow, clip(r.name ?? "", 50), when(r.createdAt)])]);
}

export function reviewRows(reviews: Review[]): string[] {
  if (!reviews.length) return ["no reviews"];
  return table([["ID", "RUN", "STATE", "DECISIONS", "APPROVALS", "PROMPT"], ...reviews.map((r) => [r.id, short(r.runId), r.state, r.decisions.join("|"), `${r.approvals.so_far}/${r.approvals.needed}`, clip(r.prompt.replace(/\s+/g, " "), 60)])]);
}

export function scheduleRows(schedules: Schedule[]): string[] {
  if (!schedules.length) return ["no schedules"];
  return table([["ID", "NAME", "WORKFLOW", "CRON", "NEXT", "STATE"], ...schedules.map((s) => [s.id, clip(s.name, 40), s.workflow, `${s.cron} (${s.timezone})`, when(s.nextFireAt), s.paused ? "paused" : "active"])]);
}

export function transitionLine(t: Transition): string {
  const at = t.at ? t.at.slice(11, 19) : "";
  return `${at}  #${t.seq}  ${t.from || "·"} → ${t.to}  (${t.reason || t.event})`;
}
