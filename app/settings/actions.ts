"use server";
import { requireRole } from "@/app/session";
import { z } from "zod";
import { getRuntime } from "@/lib/runtime";
import { revalidatePath } from "next/cache";
import { addToGroup, removeFromGroup } from "@/lib/auth/groups";
import { isEngineError } from "@/lib/engine/errors";

const Name = z.string().min(1).max(100);

export interface ConnectionResult {
  ok: boolean;
  latencyMs: number;
  model: string;
  error?: string;
  category?: string;
}

/** One small request to one endpoint, without retries: is it reachable, and how fast? */
export async function testConnectionAction(name: string): Promise<ConnectionResult> {
  await requireRole("admin");
  const parsed = Name.safeParse(name);
  if (!parsed.success) return { ok: false, latencyMs: 0, model: "", error: "invalid endpoint name" };
  const rt = await getRuntime();
  const port = rt.rawModel as { testConnection?: (n: string) => Promise<ConnectionResult> };
  if (!port.testConnection) return { ok: false, latencyMs: 0, model: "", error: "no model endpoint is configured (the offline engine needs no connection)" };
  return port.testConnection(parsed.data);
}

export interface GroupResult {
  ok: boolean;
  message: string;
}

const Membership = z.object({ user: z.string().trim().min(1, "choose a person").max(100), group: z.string().trim().min(1, "name a group").max(63) });

/** Add a person to a group, or take them out (admin): the groups reviews are assigned and escalated to. */
export async function groupAction(_prev: GroupResult | null, form: FormData): Promise<GroupResult> {
  await requireRole("admin");
  const parsed = Membership.safeParse({ user: form.get("user"), group: form.get("group") });
  if (!parsed.success) return { ok: false, message: parsed.error.issues.map((i) => i.message).join("; ") };
  const rt = await getRuntime();
  const remove = form.get("op") === "remove";
  try {
    const groups = remove ? await removeFromGroup(rt.db, parsed.data.user, parsed.data.group) : await addToGroup(rt.db, parsed.data.user, parsed.data.group, rt.clock.now());
    revalidatePath("/settings");
    return { ok: true, message: `${parsed.data.user} is in ${groups.length ? groups.join(", ") : "no group"}` };
  } catch (e) {
    if (isEngineError(e)) return { ok: false, message: e.message };
    throw e;
  }
}
