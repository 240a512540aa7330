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
import { provideWorkflows } from "../lib/machines/registry";
import * as workflows from "../workflows/registry";
import { userCommand } from "./user-command";

provideWorkflows(workflows);

process.exitCode = await userCommand(process.argv.slice(2), { env: process.env, out: (l) => console.log(l), err: (l) => console.error(l) });
