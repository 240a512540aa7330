/** A small label/value pill (review payloads). */
export function Chip({ label, value, tone = "slate" }: { label: string; value: React.ReactNode; tone?: "slate" | "amber" | "emerald" }) {
  const t = { slate: "bg-slate-100 dark:bg-slate-800 text-slate-800 dark:text-slate-200", amber: "bg-amber-100 text-amber-950", emerald: "bg-emerald-100 text-emerald-950" }[tone];
  return (
    <span className={`inline-flex items-center gap-1 rounded-md px-2 py-0.5 text-[11px] ${t}`}>
      <span>{label}</span>
      <span className="font-semibold">{value}</span>
    </span>
  );
}
