/** A column heading: its label, right-aligned for numbers. An empty label makes an empty cell. */
export type Column = string | { label: string; right?: boolean; className?: string };

const STYLES = {
  // small tables inside cards (metrics, transitions, sources, usage)
  compact: { head: "text-left text-[11px] text-slate-600 dark:text-slate-400", cell: "py-1 pr-2 font-medium last:pr-0" },
  // full-width lists (runs, documents)
  boxed: { head: "border-b border-slate-200 dark:border-slate-700 bg-slate-50 dark:bg-slate-800/60 text-left text-xs text-slate-600 dark:text-slate-400", cell: "px-3 py-2 font-medium" },
} as const;

/** The `<thead>` of a table, styled the same everywhere. */
export function TableHead({ columns, variant = "compact" }: { columns: Column[]; variant?: keyof typeof STYLES }) {
  const style = STYLES[variant];
  return (
    <thead className={style.head}>
      <tr>
        {columns.map((c, i) => {
          const col = typeof c === "string" ? { label: c } : c;
          return (
            <th key={i} className={`${style.cell}${col.right ? " text-right" : ""}${"className" in col && col.className ? ` ${col.className}` : ""}`}>
              {col.label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}
