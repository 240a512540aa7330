// npm run user -- <command> — accounts for SWITCHYARD_AUTH=on, on DATABASE_URL:
//   add --name <name> --role viewer|reviewer|operator|admin   (password from SWITCHYARD_PASSWORD, else asked)
//   token --name <user> --label <label> --role <role|worker> [--queues a,b]   (prints the token once;
//         worker: /api/tasks/* only; --queues: a worker token that may claim from these queues only)
//   revoke <token id>
//   unlock --name <name>   (clears the sign-in lockout of that name: it may try again at once)
//   group --name <user> --add <group> | --remove <group>   (groups route reviews: review.assign, due.escalate)
//   group list   (every group and its members)
//   list
import "dotenv/config";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { migrateDatabase } from "../lib/db/migrations";
import { isRole, isTokenRole } from "../lib/auth/roles";
import { addToGroup, listGroups, removeFromGroup } from "../lib/auth/groups";
import { createRuntime } from "../lib/runtime";
import { provideWorkflows } from "../lib/machines/registry";
import * as workflows from "../workflows/registry";

provideWorkflows(workflows);

const { values, positionals } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== "--"),
  allowPositionals: true,
  options: { name: { type: "string" }, role: { type: "string" }, label: { type: "string" }, queues: { type: "string" }, add: { type: "string" }, remove: { type: "string" } },
});
const [command, arg] = positionals;
const usage = () => {
  console.error(
    [
      "usage: npm run user -- add --name <name> --role <viewer|reviewer|operator|admin>",
      "       npm run user -- token --name <user> --label <label> --role <viewer|reviewer|operator|admin|worker> [--queues a,b]",
      "       npm run user -- revoke <token id>",
      "       npm run user -- unlock --name <name>",
      "       npm run user -- group --name <user> --add <group> | --remove <group>",
      "       npm run user -- group list",
      "       npm run user -- list",
    ].join("\n"),
  );
  process.exit(2);
};
if (!command || !["add", "token", "revoke", "unlock", "group", "list"].includes(command)) usage();
if (command === "group" && arg !== "list" && (!values.name || (values.add === undefined) === (values.remove === undefined))) usage();

const rt = await createRuntime({ migrate: migrateDatabase, resume: false, serviceChoresMs: 0, alerts: { start: false }, retention: null });
try {
  if (command === "add") {
    if (!values.name || !isRole(values.role)) usage();
    let password = process.env.SWITCHYARD_PASSWORD;
    if (!password) {
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      password = await rl.question(`password for ${values.name} (10+ characters): `);
      rl.close();
    }
    const u = await rt.accounts.createUser({ name: values.name!, password, role: values.role as never });
    console.log(`user ${u.name} (${u.role}) created`);
  } else if (command === "token") {
    if (!values.name || !values.label || !isTokenRole(values.role)) usage();
    const queues = values.queues === undefined ? undefined : values.queues.split(",").map((q) => q.trim()).filter(Boolean);
    const t = await rt.accounts.createToken(values.name!, values.label!, values.role as never, queues);
    console.log(`token ${t.id} (${values.role}${queues ? `, queues ${queues.join(", ")}` : ""}) for ${values.name}; shown once:\n${t.token}`);
  } else if (command === "unlock") {
    if (!values.name) usage();
    const cleared = await rt.accounts.unlock(values.name!);
    console.log(cleared ? `sign-in lockout of ${values.name} cleared` : `no failed sign-ins counted for ${values.name}: nothing to clear`);
  } else if (command === "group") {
    if (arg === "list") {
      const groups = await listGroups(rt.db);
      if (groups.length === 0) console.log("no groups yet: npm run user -- group --name <user> --add <group>");
      for (const g of groups) console.log(`${g.name}\t${g.members.join(", ")}`);
    } else {
      const now = rt.clock.now();
      const groups = values.add !== undefined ? await addToGroup(rt.db, values.name!, values.add, now) : await removeFromGroup(rt.db, values.name!, values.remove!);
      console.log(`${values.name} is in ${groups.length ? groups.join(", ") : "no group"}`);
    }
  } else if (command === "revoke") {
    if (!arg) usage();
    await rt.accounts.revokeToken(arg!);
    console.log(`token ${arg} revoked`);
  } else {
    for (const u of await rt.db.user.findMany({ orderBy: { name: "asc" } })) console.log(`${u.name}\t${u.role}${u.disabled ? "\tdisabled" : ""}`);
    for (const t of await rt.db.apiToken.findMany({ orderBy: { createdAt: "asc" } })) console.log(`token ${t.id}\t${t.name}\t${t.role}${t.queues ? `\tqueues ${(JSON.parse(t.queues) as string[]).join(",")}` : ""}${t.revokedAt ? "\trevoked" : ""}`);
  }
} catch (e) {
  console.error(`error: ${(e as Error).message}`);
  process.exitCode = 1;
} finally {
  await rt.close();
}
