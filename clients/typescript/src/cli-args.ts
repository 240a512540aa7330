// What the CLI's commands share: the command shape, and reading options (numbers, JSON, files, inputs).
import fs from "node:fs";
import type { Switchyard } from "./client.js";
import { EXIT, UsageError, type Io } from "./cli-output.js";

export type Values = Record<string, string | boolean | string[] | undefined>;
export type Option = { type: "string" | "boolean"; short?: string; multiple?: boolean; help: string };

export interface Command {
  args: string;
  summary: string;
  options?: Record<string, Option>;
  /** how many positionals it takes: [at least, at most] */
  positionals: [number, number];
  run(client: Switchyard, io: Io, args: string[], v: Values): Promise<number>;
}

export const str = (v: Values, k: string) => (typeof v[k] === "string" ? (v[k] as string) : undefined);
export const int = (v: Values, k: string) => {
  const s = str(v, k);
  if (s === undefined) return undefined;
  if (!/^\d+$/.test(s)) throw new UsageError(`--${k} must be a whole number (got "${s}")`);
  return Number(s);
};
export const json = (io: Io, data: unknown) => io.out(JSON.stringify(data, null, 2));

/**
 * The usual command: one call, its answer printed as JSON with --json, else as `print` writes it
 * (a string or lines go to standard output). Exit 0; a refusal is a SwitchyardError (cli-output.ts).
 */
export function answering<T>(call: (client: Switchyard, args: string[], v: Values) => Promise<T>, print: (answer: T, io: Io, args: string[], v: Values) => string | string[] | void): Command["run"] {
  return async (client, io, args, v) => {
    const answer = await call(client, args, v);
    if (io.json) json(io, answer);
    else for (const line of [print(answer, io, args, v) ?? []].flat()) io.out(line);
    return EXIT.ok;
  };
}

/** JSON text, "@file" (its contents) or "-" (standard input), parsed. */
export function jsonArg(text: string, what: string): unknown {
  const raw = text === "-" ? fs.readFileSync(0, "utf8") : text.startsWith("@") ? readFile(text.slice(1)) : text;
  try {
    return JSON.parse(raw);
  } catch (e) {
    throw new UsageError(`${what} is not JSON: ${(e as Error).message}`);
  }
}

export function readFile(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

/** The options `inputOf` reads, for a command that starts runs: `whose` input it is ("the run's", "the runs'"). */
export function inputOptions(whose: string) {
  return {
    input: { type: "string", short: "i", help: `${whose} input: JSON, @file.json, or - for standard input` },
    set: { type: "string", multiple: true, help: "key=value into the input (repeatable; JSON values are parsed)" },
  } as const satisfies Command["options"];
}

/** --input (JSON, @file or -) with --set key=value on top (a value that parses as JSON is taken as such). */
export function inputOf(v: Values): Record<string, unknown> {
  const base = str(v, "input") !== undefined ? jsonArg(str(v, "input")!, "--input") : {};
  if (!base || typeof base !== "object" || Array.isArray(base)) throw new UsageError("--input must be a JSON object");
  const out = { ...(base as Record<string, unknown>) };
  for (const pair of (v.set as string[] | undefined) ?? []) {
    const eq = pair.indexOf("=");
    if (eq < 1) throw new UsageError(`--set takes key=value (got "${pair}")`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    out[pair.slice(0, eq)] = value;
  }
  return out;
}

