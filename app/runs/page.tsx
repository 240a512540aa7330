import { redirect } from "next/navigation";
import { requireViewer } from "@/app/session";

// The runs list is the dashboard at /; /runs (the parent of every run page's address) leads
// there, with its filters (?workflow=…) kept.
export default async function RunsIndex({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await requireViewer();
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(await searchParams)) for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) query.append(k, one);
  redirect(query.size ? `/?${query}` : "/");
}
