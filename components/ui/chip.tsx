/** A small label/value pill (review payloads). */
export function Chip({ label, value, tone = "slate" }: { label: string; value: React.ReactNode; tone?: "slate" | "amber" | "emerald" }) {
  const t = { slate: "bg-slate-100 dark:bg-slate-800 text-slate-700 dark:text-slate-300", amber: "bg-amber-100 text-amber-900", emerald: "bg-emerald-100 text-emerald-900" }[tone];
  return (
    <span className={`inline-flex items-center gap-1 rounded-md px-2 py-0.5 text-[11px] ${t}`}>
      <span className="opacity-70">{label}</span>
      <span className="font-medium">{value}</span>
    </span>
  );
}
