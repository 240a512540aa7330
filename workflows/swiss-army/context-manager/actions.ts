"use server";
import { requireRole } from "@/app/session";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getRuntime } from "@/lib/runtime";
import { contextManagerOf } from "../services";

const Switch = z.object({ offline: z.boolean(), reason: z.string().trim().max(200).optional() });

/** Take the Context Manager offline (runs continue in degraded mode) or bring it back (queued writes flush). */
export async function setContextManagerAction(input: z.input<typeof Switch>): Promise<{ ok: boolean; error?: string; flushed?: number }> {
  await requireRole("admin");
  const parsed = Switch.safeParse(input);
  if (!parsed.success) return { ok: false, error: parsed.error.issues.map((i) => i.message).join("; ") };
  const cm = contextManagerOf(await getRuntime());
  if (parsed.data.offline) {
    await cm.setMaintenance(parsed.data.reason || "switched off by an operator");
    revalidatePath("/workflows/[id]", "page"); // the workflow pages showing the Context Manager panel
    return { ok: true };
  }
  await cm.setMaintenance(null);
  const { flushed } = await cm.flushOutbox();
  revalidatePath("/workflows/[id]", "page"); // the workflow pages showing the Context Manager panel
  return { ok: true, flushed };
}
