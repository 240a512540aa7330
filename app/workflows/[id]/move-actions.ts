"use server";
import { redirect } from "next/navigation";
import { z } from "zod";
import { currentUser, requireRole } from "@/app/session";
import { migrateRuns } from "@/lib/change/migrate";
import { isEngineError } from "@/lib/engine/errors";
import { getRuntime } from "@/lib/runtime";

const Form = z.object({
  workflow: z.string().min(1).max(100).regex(/^[A-Za-z0-9._-]+$/),
  from: z.coerce.number().int().min(1),
  to: z.coerce.number().int().min(1),
});

/** "Move runs to vN": the waiting runs of `from` that can move are moved (the same plan as the dry run shown). */
export async function moveRunsAction(form: FormData): Promise<void> {
  await requireRole("admin");
  const parsed = Form.safeParse({ workflow: form.get("workflow"), from: form.get("from"), to: form.get("to") });
  if (!parsed.success) redirect("/workflows");
  const { workflow, from, to } = parsed.data;
  const map: Record<string, string> = {};
  for (const [k, v] of form.entries()) if (k.startsWith("map.") && typeof v === "string" && v) map[k.slice(4)] = v;
  const who = (await currentUser())?.name ?? "local user";
  let moved = 0;
  let left = 0;
  try {
    const out = await migrateRuns(await getRuntime(), workflow, { from, to, ...(Object.keys(map).length ? { map } : {}) }, who);
    moved = out.results.filter((r) => r.ok).length;
    left = out.results.length - moved;
  } catch (e) {
    if (!(isEngineError(e) && e.status < 500)) throw e;
    redirect(`/workflows/${encodeURIComponent(workflow)}?from=${from}&error=${encodeURIComponent(e.message)}`);
  }
  redirect(`/workflows/${encodeURIComponent(workflow)}?moved=${moved}&left=${left}&to=${to}`);
}
