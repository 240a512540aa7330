// The commands of `npm run user` (scripts/user.ts, which gives it the process's arguments, streams
// and environment): a function, so that a test runs them in its own process.
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { migrateDatabase } from "../lib/db/migrations";
import { isRole, isTokenRole } from "../lib/auth/roles";
import { addToGroup, listGroups, removeFromGroup } from "../lib/auth/groups";
import { createRuntime } from "../lib/runtime";

export const USAGE = [
  "usage: npm run user -- add --name <name> --role <viewer|reviewer|operator|admin>",
  "       npm run user -- token --name <user> --label <label> --role <viewer|reviewer|operator|admin|worker> [--queues a,b]",
  "       npm run user -- revoke <token id>",
  "       npm run user -- unlock --name <name>",
  "       npm run user -- group --name <user> --add <group> | --remove <group>",
  "       npm run user -- group list",
  "       npm run user -- list",
].join("\n");

export interface UserCommandIo {
  /** DATABASE_URL (the runtime's database) and SWITCHYARD_PASSWORD come from here */
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
  /** asked for a password when SWITCHYARD_PASSWORD is not set */
  ask?: (prompt: string) => Promise<string>;
}

/** a terminal's questions, on stderr so that stdout stays the command's output */
export async function askOnTerminal(prompt: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(prompt);
  } finally {
    rl.close();
  }
}

/** Runs one command; the exit code: 0 done, 1 refused or failed (its error printed), 2 usage. */
export async function userCommand(args: string[], io: UserCommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: args.filter((a) => a !== "--"),
    allowPositionals: true,
    options: { name: { type: "string" }, role: { type: "string" }, label: { type: "string" }, queues: { type: "string" }, add: { type: "string" }, remove: { type: "string" } },
  });
  const [command, arg] = positionals;
  const usage = () => {
    io.err(USAGE);
    return 2;
  };
  if (!command || !["add", "token", "revoke", "unlock", "group", "list"].includes(command)) return usage();
  if (command === "group" && arg !== "list" && (!values.name || (values.add === undefined) === (values.remove === undefined))) return usage();
  if (command === "add" && (!values.name || !isRole(values.role))) return usage();
  if (command === "token" && (!values.name || !values.label || !isTokenRole(values.role))) return usage();
  if ((command === "unlock" && !values.name) || (command === "revoke" && !arg)) return usage();

  const rt = await createRuntime({ env: io.env, migrate: migrateDatabase, resume: false, serviceChoresMs: 0, alerts: { start: false }, retention: null });
  try {
    if (command === "add") {
      let password = io.env.SWITCHYARD_PASSWORD;
      if (!password) password = await (io.ask ?? askOnTerminal)(`password for ${values.name} (10+ characters): `);
      const u = await rt.accounts.createUser({ name: values.name!, password, role: values.role as never });
      io.out(`user ${u.name} (${u.role}) created`);
    } else if (command === "token") {
      const queues = values.queues === undefined ? undefined : values.queues.split(",").map((q) => q.trim()).filter(Boolean);
      const t = await rt.accounts.createToken(values.name!, values.label!, values.role as never, queues);
      io.out(`token ${t.id} (${values.role}${queues ? `, queues ${queues.join(", ")}` : ""}) for ${values.name}; shown once:\n${t.token}`);
    } else if (command === "unlock") {
      const cleared = await rt.accounts.unlock(values.name!);
      io.out(cleared ? `sign-in lockout of ${values.name} cleared` : `no failed sign-ins counted for ${values.name}: nothing to clear`);
    } else if (command === "group") {
      if (arg === "list") {
        const groups = await listGroups(rt.db);
        if (groups.length === 0) io.out("no groups yet: npm run user -- group --name <user> --add <group>");
        for (const g of groups) io.out(`${g.name}\t${g.members.join(", ")}`);
      } else {
        const now = rt.clock.now();
        const groups = values.add !== undefined ? await addToGroup(rt.db, values.name!, values.add, now) : await removeFromGroup(rt.db, values.name!, values.remove!);
        io.out(`${values.name} is in ${groups.length ? groups.join(", ") : "no group"}`);
      }
    } else if (command === "revoke") {
      await rt.accounts.revokeToken(arg!);
      io.out(`token ${arg} revoked`);
    } else {
      for (const u of await rt.db.user.findMany({ orderBy: { name: "asc" } })) io.out(`${u.name}\t${u.role}${u.disabled ? "\tdisabled" : ""}`);
      for (const t of await rt.db.apiToken.findMany({ orderBy: { createdAt: "asc" } })) io.out(`token ${t.id}\t${t.name}\t${t.role}${t.queues ? `\tqueues ${(JSON.parse(t.queues) as string[]).join(",")}` : ""}${t.revokedAt ? "\trevoked" : ""}`);
    }
    return 0;
  } catch (e) {
    io.err(`error: ${(e as Error).message}`);
    return 1;
  } finally {
    await rt.close();
  }
}
