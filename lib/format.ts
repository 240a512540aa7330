// Formatting shared by server and client components.

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  const s = ms / 1_000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

export function shortId(id: string): string {
  return id.slice(0, 8);
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return d.toLocaleString("en-GB", { day: "2-digit", month: "short", hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false, timeZone: "UTC" }) + " UTC";
}

export function clockTime(iso: string): string {
  return new Date(iso).toISOString().slice(11, 23);
}

/** "CONTEXT_SEARCH" → "Context search" */
export function humanize(name: string): string {
  const s = name.replace(/[_.-]+/g, " ").toLowerCase().trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * A transition's state paths split at what they share: "A.B.C" → "A.B.D" reads as the scope
 * "A.B." and the move "C" → "D". Parallel lists (comma-joined) and moves without a shared parent
 * keep their whole paths (scope "").
 */
export function transitionParts(from: string, to: string): { scope: string; from: string; to: string } {
  if (!from || from.includes(",") || to.includes(",")) return { scope: "", from, to };
  const a = from.split(".");
  const b = to.split(".");
  let n = 0;
  while (n < a.length - 1 && n < b.length - 1 && a[n] === b[n]) n++;
  return n ? { scope: `${a.slice(0, n).join(".")}.`, from: a.slice(n).join("."), to: b.slice(n).join(".") } : { scope: "", from, to };
}
