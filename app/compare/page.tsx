// /compare?pick=A&pick=B (the runs list's Compare button): to /runs/A/compare/B when two runs are picked.
import Link from "@/components/ui/link";
import { redirect } from "next/navigation";
import { requireViewer } from "@/app/session";

export const dynamic = "force-dynamic";

export default async function CompareRedirect({ searchParams }: { searchParams: Promise<{ pick?: string | string[] }> }) {
  await requireViewer();
  const raw = (await searchParams).pick;
  const picked = [...new Set((Array.isArray(raw) ? raw : raw ? [raw] : []).filter((x) => /^[A-Za-z0-9_-]{1,200}$/.test(x)))];
  if (picked.length === 2) redirect(`/runs/${picked[0]}/compare/${picked[1]}`);
  return (
    <div className="mx-auto max-w-xl rounded-xl border border-slate-200 bg-white p-4 text-sm dark:border-slate-700 dark:bg-slate-900" data-testid="compare-pick-two">
      <p>Pick exactly two runs to compare ({picked.length} picked).</p>
      <Link href="/" className="mt-2 inline-block text-blue-700 underline dark:text-blue-400">Back to the runs</Link>
    </div>
  );
}
