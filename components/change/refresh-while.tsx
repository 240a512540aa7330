"use client";
import { useRouter } from "next/navigation";
import { useEffect } from "react";

/** Re-render the (server) page every second while `active` (an evaluation still running). */
export function RefreshWhile({ active }: { active: boolean }) {
  const router = useRouter();
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => router.refresh(), 1_000);
    return () => clearInterval(t);
  }, [active, router]);
  return null;
}
