const styles: Record<string, string> = {
  running: "bg-blue-50 text-blue-700 ring-blue-600/20 dark:bg-blue-950 dark:text-blue-300 dark:ring-blue-400/30",
  waiting: "bg-emerald-50 text-emerald-700 ring-emerald-600/20 dark:bg-emerald-950 dark:text-emerald-300 dark:ring-emerald-400/30",
  completed: "bg-slate-100 dark:bg-slate-800 text-slate-700 dark:text-slate-300 ring-slate-500/20",
  failed: "bg-red-50 text-red-700 ring-red-600/20 dark:bg-red-950 dark:text-red-300 dark:ring-red-400/30",
  aborted: "bg-amber-50 text-amber-800 ring-amber-600/20 dark:bg-amber-950 dark:text-amber-300 dark:ring-amber-400/30",
  pending: "bg-emerald-50 text-emerald-700 ring-emerald-600/20 dark:bg-emerald-950 dark:text-emerald-300 dark:ring-emerald-400/30",
  decided: "bg-slate-100 dark:bg-slate-800 text-slate-700 dark:text-slate-300 ring-slate-500/20",
  cancelled: "bg-amber-50 text-amber-800 ring-amber-600/20 dark:bg-amber-950 dark:text-amber-300 dark:ring-amber-400/30",
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span data-status={status} className={`inline-flex items-center gap-1 whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${styles[status] ?? styles.completed}`}>
      {status === "running" && <span className="h-1.5 w-1.5 rounded-full motion-safe:animate-pulse bg-blue-600" />}
      {status}
    </span>
  );
}

export function WaitingBadge() {
  return <span className="inline-flex items-center whitespace-nowrap rounded-full bg-emerald-700 px-2 py-0.5 text-[11px] font-semibold text-white">waiting for you</span>;
}
