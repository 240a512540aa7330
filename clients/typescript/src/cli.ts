#!/usr/bin/env node
// `switchyard <group> <command>`: Switchyard's REST API from a terminal or a CI job (README.md,
// "Command line"). The server is --url or SWITCHYARD_URL (default http://localhost:3000), the API
// token --token or SWITCHYARD_TOKEN; --json prints the API's answers as JSON. Exit codes: cli-output.ts.
import fs from "node:fs";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { Switchyard } from "./client.js";
import { COMMANDS, type Command, type Values } from "./cli-commands.js";
import { EXIT, failure, UsageError, type Io } from "./cli-output.js";

const GLOBAL = {
  url: { type: "string", help: "the server (default SWITCHYARD_URL, else http://localhost:3000)" },
  token: { type: "string", help: "an API token sy_… (default SWITCHYARD_TOKEN), for a server with accounts on" },
  json: { type: "boolean", help: "print the API's answers as JSON (watch: one JSON object a line)" },
  help: { type: "boolean", short: "h", help: "this help, or a command's" },
  version: { type: "boolean", help: "the client's version" },
} as const;

function version(): string {
  try {
    return (JSON.parse(fs.readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    return "unknown";
  }
}

function optionLines(options: Record<string, { type: string; short?: string; help: string }>): string[] {
  return Object.entries(options).map(([name, o]) => `  ${o.short ? `-${o.short}, ` : "    "}--${name}${o.type === "string" ? " <value>" : ""}`.padEnd(34) + o.help);
}

function help(name?: string): string[] {
  const c = name ? COMMANDS[name] : undefined;
  if (c && name) return [`usage: switchyard ${name} ${c.args}`.trimEnd(), "", c.summary, ...(c.options ? ["", "options:", ...optionLines(c.options)] : []), "", "global options:", ...optionLines(GLOBAL)];
  const width = Math.max(...Object.entries(COMMANDS).map(([n, x]) => `${n} ${x.args}`.length));
  return [
    "usage: switchyard <command> [options]",
    "",
    "commands:",
    ...Object.entries(COMMANDS).map(([n, x]) => `  ${`${n} ${x.args}`.padEnd(width)}  ${x.summary}`),
    "",
    "global options:",
    ...optionLines(GLOBAL),
    "",
    "exit codes: 0 done, 1 error, 2 usage, 3 not found, 4 refused (400/409/422), 5 not allowed (401/403),",
    "            6 server unreachable, 7 invalid definition, 8 run failed, 9 run aborted",
    "`switchyard <command> --help` for a command's options.",
  ];
}

/** Run one command line; resolves with the exit code. */
export async function main(argv: string[], env: Record<string, string | undefined> = process.env, io?: Partial<Io>): Promise<number> {
  const out: Io = { out: io?.out ?? ((l) => process.stdout.write(`${l}\n`)), err: io?.err ?? ((l) => process.stderr.write(`${l}\n`)), json: argv.includes("--json") };
  // the two words that name the command, read with every command's options known (so that an option's value is not taken for one)
  const all = Object.fromEntries([GLOBAL, ...Object.values(COMMANDS).map((c) => c.options ?? {})].flatMap((o) => Object.entries(o)).map(([k, o]) => [k, { type: o.type, ...(o.short ? { short: o.short } : {}), ...("multiple" in o && o.multiple ? { multiple: true } : {}) }]));
  const words = parseArgs({ args: argv, options: all as ParseArgsConfig["options"], strict: false, allowPositionals: true }).positionals.slice(0, 2);
  const name = words.join(" ");
  const command: Command | undefined = COMMANDS[name];
  try {
    if (!command) {
      if (argv.includes("--version")) return out.out(version()), EXIT.ok;
      if (argv.length === 0 || argv.includes("--help") || argv.includes("-h")) return help().forEach((l) => out.out(l)), argv.length === 0 ? EXIT.usage : EXIT.ok;
      throw new UsageError(words.length ? `unknown command "${name}"` : "name a command");
    }
    const options = { ...GLOBAL, ...(command.options ?? {}) } as Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;
    let parsed: { values: Values; positionals: string[] };
    try {
      const config = Object.fromEntries(Object.entries(options).map(([k, o]) => [k, { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) }])) as ParseArgsConfig["options"];
      parsed = parseArgs({ args: argv, options: config, allowPositionals: true, strict: true }) as typeof parsed;
    } catch (e) {
      throw new UsageError((e as Error).message.split("\n")[0]!);
    }
    if (parsed.values.help) return help(name).forEach((l) => out.out(l)), EXIT.ok;
    // the positionals after the two words that name the command
    const args = parsed.positionals.slice(2);
    const [min, max] = command.positionals;
    if (args.length < min || args.length > max) throw new UsageError(`usage: switchyard ${name} ${command.args}`.trimEnd());
    const url = (parsed.values.url as string | undefined) ?? env.SWITCHYARD_URL ?? "http://localhost:3000";
    if (!/^https?:\/\//.test(url)) throw new UsageError(`--url must be an http(s) URL (got "${url}")`);
    const token = (parsed.values.token as string | undefined) ?? env.SWITCHYARD_TOKEN;
    const client = new Switchyard({ baseUrl: url, token });
    return await command.run(client, out, args, parsed.values);
  } catch (e) {
    return failure(out, e);
  }
}

const invoked = process.argv[1] ? fs.realpathSync(process.argv[1]) : "";
if (invoked && invoked === fs.realpathSync(new URL(import.meta.url))) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
