"use client";
import { useEffect, useState } from "react";
import { formatDuration } from "@/lib/format";

/** A duration that keeps counting while it is on screen. */
export function Since({ from, until }: { from: string | null; until?: string | null }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    if (until) return;
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, [from, until]);
  if (!from) return <>—</>;
  return <>{formatDuration(Math.max(0, (until ? Date.parse(until) : Math.max(now, Date.parse(from))) - Date.parse(from)))}</>;
}
