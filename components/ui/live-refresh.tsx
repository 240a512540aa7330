"use client";
import { useRouter } from "next/navigation";
import { useEffect } from "react";

/** Re-render the (server) page when any run changes, at most a few times a second. */
export function LiveRefresh({ events = ["run", "review"] }: { events?: string[] }) {
  const router = useRouter();
  useEffect(() => {
    const source = new EventSource("/api/stream");
    let timer: ReturnType<typeof setTimeout> | null = null;
    const refresh = () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        router.refresh();
      }, 250);
    };
    for (const e of events) source.addEventListener(e, refresh);
    return () => {
      source.close();
      if (timer) clearTimeout(timer);
    };
  }, [router, events]);
  return null;
}
