// Groups of people (table UserGroup): what a review's `assign` and `due.escalate` name. Set with
// `npm run user -- group --name ana --add legal` or on the admin's Settings page. With accounts on,
// a review assigned to groups may be decided only by their members and by admins (and the queue
// offers it to no one else); with accounts off, groups are labels that route and filter.
import type { Db } from "../db/client";
import { InvalidError, NotFoundError } from "../engine/errors";
import { GroupName } from "../reviews/routes";
import type { Principal } from "./accounts";

export interface GroupView {
  name: string;
  /** user names, sorted */
  members: string[];
}

function groupName(raw: string): string {
  const g = GroupName.safeParse(raw);
  if (!g.success) throw new InvalidError(`group "${raw}": ${g.error.issues[0]!.message}`);
  return g.data;
}

async function userId(db: Db, name: string): Promise<string> {
  const u = await db.user.findUnique({ where: { name }, select: { id: true } });
  if (!u) throw new NotFoundError(`user ${name} not found`);
  return u.id;
}

/** Put a user in a group (already in it: nothing changes). Returns the user's groups. */
export async function addToGroup(db: Db, user: string, group: string, now: number): Promise<string[]> {
  const name = groupName(group);
  const id = await userId(db, user);
  await db.userGroup.upsert({ where: { userId_name: { userId: id, name } }, create: { userId: id, name, createdAt: new Date(now) }, update: {} });
  return groupsOfUser(db, id);
}

/** Take a user out of a group (not in it: 404). Returns the user's groups. */
export async function removeFromGroup(db: Db, user: string, group: string): Promise<string[]> {
  const name = groupName(group);
  const id = await userId(db, user);
  const r = await db.userGroup.deleteMany({ where: { userId: id, name } });
  if (r.count === 0) throw new NotFoundError(`user ${user} is not in group ${name}`);
  return groupsOfUser(db, id);
}

export async function groupsOfUser(db: Db, id: string): Promise<string[]> {
  return (await db.userGroup.findMany({ where: { userId: id }, orderBy: { name: "asc" }, select: { name: true } })).map((g) => g.name);
}

/** Every group with its members, by name. */
export async function listGroups(db: Db): Promise<GroupView[]> {
  const rows = await db.userGroup.findMany({ orderBy: [{ name: "asc" }], select: { name: true, userId: true } });
  const users = new Map((await db.user.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.userId))] } }, select: { id: true, name: true } })).map((u) => [u.id, u.name]));
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const who = users.get(r.userId);
    if (who) (out.get(r.name) ?? out.set(r.name, []).get(r.name)!).push(who);
  }
  return [...out].map(([name, members]) => ({ name, members: members.sort() }));
}

/**
 * Who may decide reviews, as far as routing goes: "any" (accounts off, or an admin), or the
 * principal's groups (a review assigned to groups needs one of them).
 */
export type Decider = "any" | { name: string; groups: string[] };

export async function deciderOf(db: Db, who: Principal | null): Promise<Decider> {
  if (!who || who.role === "admin") return "any";
  return { name: who.name, groups: await groupsOfUser(db, who.userId) };
}

/** Why `decider` may not decide a review assigned to `assignedTo`, or null. */
export function barredFrom(decider: Decider, assignedTo: string[] | null): string | null {
  if (decider === "any" || !assignedTo?.length) return null;
  if (assignedTo.some((g) => decider.groups.includes(g))) return null;
  return `this review is assigned to ${assignedTo.join(", ")}; ${decider.name} is not in ${assignedTo.length > 1 ? "any of those groups" : "that group"} (an admin can add them: npm run user -- group --name ${decider.name} --add ${assignedTo[0]})`;
}
