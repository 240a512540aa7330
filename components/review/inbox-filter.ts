// The review inbox's filters, search and order, read from and written to the URL
// (/review?workflow=<id>&kind=…&assigned=me|<group>&overdue=true&q=…&sort=age|due). Pure: the
// server page parses the first render's query with it, the inbox filters as the user types.
import { z } from "zod";

export const SORTS = ["age", "due"] as const;
export type Sort = (typeof SORTS)[number];

export interface InboxFilter {
  workflow?: string;
  kind?: string;
  assigned?: string;
  overdue?: boolean;
  q?: string;
  sort: Sort;
}

const text = z.string().trim().min(1).max(200);
// each field on its own: a bad value drops that filter, never the page
const Fields = {
  workflow: text,
  kind: text,
  assigned: text,
  overdue: z.enum(["true", "false"]).transform((v) => v === "true"),
  q: text,
  sort: z.enum(SORTS),
};

/** The filter a query asks for; unknown keys and bad values are left out. */
export function parseFilter(query: Record<string, string | string[] | undefined> | URLSearchParams): InboxFilter {
  const get = (k: string) => {
    const v = query instanceof URLSearchParams ? query.get(k) : query[k];
    return Array.isArray(v) ? v[0] : (v ?? undefined);
  };
  const out: InboxFilter = { sort: "age" };
  for (const [key, schema] of Object.entries(Fields)) {
    const r = schema.safeParse(get(key));
    if (r.success) (out as unknown as Record<string, unknown>)[key] = r.data;
  }
  if (out.overdue === false) delete out.overdue;
  return out;
}

/** The query string for a filter (defaults left out), "" for none. */
export function filterQuery(f: InboxFilter): string {
  const p = new URLSearchParams();
  if (f.workflow) p.set("workflow", f.workflow);
  if (f.kind) p.set("kind", f.kind);
  if (f.assigned) p.set("assigned", f.assigned);
  if (f.overdue) p.set("overdue", "true");
  if (f.q) p.set("q", f.q);
  if (f.sort !== "age") p.set("sort", f.sort);
  const s = p.toString();
  return s ? `?${s}` : "";
}

/** What the inbox needs of a review to filter and order it. */
export interface Filterable {
  workflow: string;
  kind: string;
  state: string;
  prompt: string;
  createdAt: string;
  name: string;
  workflowTitle: string;
  /** the groups a review is routed to (when routing is configured) */
  assignedTo?: string[] | null;
  dueAt?: string | null;
  overdue?: boolean;
}

/**
 * Does `r` pass `f`? `me`: the groups and name of the person deciding (assigned=me matches a
 * review routed to any of them, or to no one).
 */
export function matches(r: Filterable, f: InboxFilter, me: string[] = []): boolean {
  if (f.workflow && r.workflow !== f.workflow) return false;
  if (f.kind && r.kind !== f.kind) return false;
  if (f.overdue && !r.overdue) return false;
  if (f.assigned) {
    const to = r.assignedTo ?? [];
    if (f.assigned === "me") {
      const mine = new Set(me.map((m) => m.toLowerCase()));
      if (to.length && !to.some((g) => mine.has(g.toLowerCase()))) return false;
    } else if (!to.some((g) => g.toLowerCase() === f.assigned!.toLowerCase())) return false;
  }
  if (f.q) {
    const words = f.q.toLowerCase().split(/\s+/).filter(Boolean);
    const hay = [r.name, r.workflow, r.workflowTitle, r.kind, r.state, r.prompt, ...(r.assignedTo ?? [])].join(" ").toLowerCase();
    if (!words.every((w) => hay.includes(w))) return false;
  }
  return true;
}

const time = (iso: string | null | undefined) => (iso ? Date.parse(iso) : Number.NaN);

/** Oldest first (sort=age), or soonest due first with undated ones after, oldest first (sort=due). */
export function compare(sort: Sort) {
  return (a: Filterable, b: Filterable): number => {
    if (sort === "due") {
      const da = time(a.dueAt);
      const db = time(b.dueAt);
      if (Number.isFinite(da) || Number.isFinite(db)) {
        if (!Number.isFinite(db)) return -1;
        if (!Number.isFinite(da)) return 1;
        if (da !== db) return da - db;
      }
    }
    return time(a.createdAt) - time(b.createdAt);
  };
}

/** The reviews that pass `f`, in its order. */
export function applyFilter<T extends Filterable>(items: T[], f: InboxFilter, me: string[] = []): T[] {
  return items.filter((r) => matches(r, f, me)).sort(compare(f.sort));
}
