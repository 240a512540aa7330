"use client";
import { useEffect, useState } from "react";
import { formatAgo, formatDuration, formatTime } from "@/lib/format";

/** The clock this browser reads, ticking every `everyMs`; null until mounted (the server's clock differs). */
function useNow(everyMs: number | null, initial: number | null = null): number | null {
  const [now, setNow] = useState<number | null>(initial);
  useEffect(() => {
    setNow(Date.now());
    if (everyMs === null) return;
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}

/** A duration that keeps counting while it is on screen. */
export function Since({ from, until, now: serverNow }: { from: string | null; until?: string | null; now?: number }) {
  const now = useNow(until ? null : 1_000, serverNow ?? null);
  if (!from) return <>—</>;
  // until the browser's clock is read, a running duration is drawn as of the server's render
  const end = until ? Date.parse(until) : Math.max(now ?? Date.parse(from), Date.parse(from));
  return <span suppressHydrationWarning>{until || now !== null ? formatDuration(end - Date.parse(from)) : "…"}</span>;
}

/** "3 min ago", ticking; the exact time on hover. `now`: the server's clock, for the first render. */
export function Ago({ at, now: serverNow }: { at: string | null | undefined; now?: number }) {
  const now = useNow(15_000, serverNow ?? null);
  if (!at) return <>—</>;
  return (
    <time dateTime={at} title={formatTime(at)} suppressHydrationWarning>
      {now === null ? formatTime(at) : formatAgo(at, now)}
    </time>
  );
}
