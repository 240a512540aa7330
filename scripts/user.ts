// npm run user -- <command> — accounts for SWITCHYARD_AUTH=on, on DATABASE_URL:
//   add --name <name> --role viewer|reviewer|operator|admin   (password from SWITCHYARD_PASSWORD, else asked)
//   token --name <user> --label <label> --role <role|worker>   (prints the token once; worker: /api/tasks/* only)
//   revoke <token id>
//   list
import "dotenv/config";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { migrateDatabase } from "../lib/db/migrations";
import { isRole, isTokenRole } from "../lib/auth/roles";
import { createRuntime } from "../lib/runtime";

const { values, positionals } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== "--"),
  allowPositionals: true,
  options: { name: { type: "string" }, role: { type: "string" }, label: { type: "string" } },
});
const [command, arg] = positionals;
const usage = () => {
  console.error("usage: npm run user -- add --name <name> --role <viewer|reviewer|operator|admin>\n       npm run user -- token --name <user> --label <label> --role <viewer|reviewer|operator|admin|worker>\n       npm run user -- revoke <token id>\n       npm run user -- list");
  process.exit(2);
};
if (!command || !["add", "token", "revoke", "list"].includes(command)) usage();

const rt = await createRuntime({ migrate: migrateDatabase, resume: false, outboxIntervalMs: 0, alerts: { start: false }, retention: null });
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
    const t = await rt.accounts.createToken(values.name!, values.label!, values.role as never);
    console.log(`token ${t.id} (${values.role}) for ${values.name}; shown once:\n${t.token}`);
  } else if (command === "revoke") {
    if (!arg) usage();
    await rt.accounts.revokeToken(arg!);
    console.log(`token ${arg} revoked`);
  } else {
    for (const u of await rt.db.user.findMany({ orderBy: { name: "asc" } })) console.log(`${u.name}\t${u.role}${u.disabled ? "\tdisabled" : ""}`);
    for (const t of await rt.db.apiToken.findMany({ orderBy: { createdAt: "asc" } })) console.log(`token ${t.id}\t${t.name}\t${t.role}${t.revokedAt ? "\trevoked" : ""}`);
  }
} catch (e) {
  console.error(`error: ${(e as Error).message}`);
  process.exitCode = 1;
} finally {
  await rt.close();
}
