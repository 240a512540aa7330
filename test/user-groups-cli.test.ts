// `npm run user -- group`: an admin's command line for the groups reviews are routed to
// (scripts/user.ts), on a SQLite file of its own.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { tempDbUrl } from "./helpers";

const url = tempDbUrl("groups-cli");
const user = (...args: string[]) => {
  const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/user.ts", ...args], { env: { ...process.env, DATABASE_URL: url, SWITCHYARD_PASSWORD: "correct-horse-battery" }, encoding: "utf8" });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
};

describe("npm run user -- group", () => {
  it("adds, lists and removes memberships; refuses bad names; shows its usage", () => {
    expect(user("add", "--name", "ana", "--role", "reviewer").out).toContain("user ana (reviewer) created");
    expect(user("group", "--name", "ana", "--add", "Legal")).toMatchObject({ code: 0, out: expect.stringContaining("ana is in legal") });
    expect(user("group", "list").out).toMatch(/^legal\tana$/m);
    expect(user("group", "--name", "ana", "--remove", "legal").out).toContain("ana is in no group");
    expect(user("group", "--name", "ana", "--add", "no way")).toMatchObject({ code: 1, out: expect.stringContaining("a group name is lower-case letters") });
    expect(user("group", "--name", "ana")).toMatchObject({ code: 2, out: expect.stringContaining("group --name <user> --add <group> | --remove <group>") });
  }, 120_000);
});
