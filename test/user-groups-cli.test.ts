// `npm run user -- group`: an admin's command line for the groups reviews are routed to
// (scripts/user-command.ts, the commands scripts/user.ts runs with the process's arguments), on a
// SQLite file of its own. The commands run in this process; the script itself, as a process of its
// own, is run by test/sign-in-lockout.test.ts and the e2e suite's sign-in specs.
import { describe, expect, it } from "vitest";
import { userCommand } from "../scripts/user-command";
import { tempDbUrl } from "./helpers";

const url = tempDbUrl("groups-cli");
const user = async (...args: string[]) => {
  const lines: string[] = [];
  const code = await userCommand(args, { env: { ...process.env, DATABASE_URL: url, SWITCHYARD_PASSWORD: "correct-horse-battery" }, out: (l) => lines.push(l), err: (l) => lines.push(l) });
  return { code, out: lines.join("\n") };
};

describe("npm run user -- group", () => {
  it("adds, lists and removes memberships; refuses bad names; shows its usage", async () => {
    expect((await user("add", "--name", "ana", "--role", "reviewer")).out).toContain("user ana (reviewer) created");
    expect(await user("group", "--name", "ana", "--add", "Legal")).toMatchObject({ code: 0, out: expect.stringContaining("ana is in legal") });
    expect((await user("group", "list")).out).toMatch(/^legal\tana$/m);
    expect((await user("group", "--name", "ana", "--remove", "legal")).out).toContain("ana is in no group");
    expect(await user("group", "--name", "ana", "--add", "no way")).toMatchObject({ code: 1, out: expect.stringContaining("a group name is lower-case letters") });
    expect(await user("group", "--name", "ana")).toMatchObject({ code: 2, out: expect.stringContaining("group --name <user> --add <group> | --remove <group>") });
  });
});
