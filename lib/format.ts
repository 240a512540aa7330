// Formatting shared by server and client components.

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "—";
  if (ms < 999.5) return `${Math.round(ms)} ms`;
  const s = ms / 1_000;
  if (s < 9.95) return `${s.toFixed(1)} s`;
  // round the whole first, then split it: 8 min 59.7 s reads "9 min 0 s", never "8 min 60 s"
  const secs = Math.round(s);
  if (secs < 60) return `${secs} s`;
  const two = (big: number, bigUnit: string, small: number, smallUnit: string) => `${big} ${bigUnit}${small ? ` ${small} ${smallUnit}` : ""}`;
  if (secs < 3_600) return two(Math.floor(secs / 60), "min", secs % 60, "s");
  const mins = Math.round(s / 60);
  if (mins < 48 * 60) return two(Math.floor(mins / 60), "h", mins % 60, "min");
  const hours = Math.round(s / 3_600);
  return two(Math.floor(hours / 24), "d", hours % 24, "h");
}

const TICK_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 10e3, 15e3, 30e3, 60e3, 120e3, 300e3, 600e3, 900e3, 1_800e3, 3_600e3, 7_200e3, 10_800e3, 21_600e3, 43_200e3, 86_400e3];

/** Round offsets (0, 5 min, 10 min, …) for an axis `spanMs` long, at most `max` + 1 of them. */
export function durationTicks(spanMs: number, max = 6): number[] {
  if (!(spanMs > 0)) return [0];
  const step = TICK_STEPS.find((t) => spanMs / t <= max) ?? Math.ceil(spanMs / max / 86_400e3) * 86_400e3;
  return Array.from({ length: Math.floor(spanMs / step) + 1 }, (_, i) => i * step);
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

/** How long ago, in words: "just now", "42 s ago", "3 min ago", "5 h ago", "2 d ago" ("in 3 min" for the future). */
export function formatAgo(iso: string | null | undefined, now: number): string {
  if (!iso) return "—";
  const ms = now - Date.parse(iso);
  if (!Number.isFinite(ms)) return "—";
  const abs = Math.abs(ms);
  const s = Math.round(abs / 1_000);
  const words = s < 5 ? null : s < 60 ? `${s} s` : s < 3_600 ? `${Math.floor(s / 60)} min` : s < 172_800 ? `${Math.floor(s / 3_600)} h` : `${Math.floor(s / 86_400)} d`;
  if (!words) return "just now";
  return ms >= 0 ? `${words} ago` : `in ${words}`;
}

/** Clip a line of text for a list: whitespace folded, at most `max` characters, with an ellipsis. */
export function clip(text: string, max = 80): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1).trimEnd()}…` : one;
}
