"use server";
import { requireRole } from "@/app/session";
import { z } from "zod";
import { getRuntime } from "@/lib/runtime";

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
