"use client";
import { useEffect, useState } from "react";
import { formatDuration } from "@/lib/format";

/** A duration that keeps counting while it is on screen. */
export function Since({ from, until }: { from: string | null; until?: string | null }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until) return;
    const t = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(t);
  }, [until]);
  if (!from) return <>—</>;
  return <>{formatDuration((until ? Date.parse(until) : now) - Date.parse(from))}</>;
}
