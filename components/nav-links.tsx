"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";

const links = [
  { href: "/", label: "Runs" },
  { href: "/review", label: "Review queue" },
  { href: "/workflows", label: "Workflows" },
  { href: "/log", label: "Log" },
  { href: "/knowledge", label: "Knowledge" },
  { href: "/settings", label: "Settings" },
];

/**
 * The pending-review count, kept current from the live stream of all runs: it is fetched again
 * when a review event arrives or a run's open review changes (not on every transition).
 */
function usePendingCount(initial: number): number {
  const [pending, setPending] = useState(initial);
  useEffect(() => setPending(initial), [initial]);
  useEffect(() => {
    const source = new EventSource("/api/stream");
    const openReview = new Map<string, string | null>();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const recount = () => {
      if (timer) return;
      timer = setTimeout(async () => {
        timer = null;
        try {
          const res = await fetch("/api/reviews?status=pending&limit=1000", { cache: "no-store" });
          if (res.ok) setPending(((await res.json()) as unknown[]).length);
        } catch {
          // keep the last count; the next event tries again
        }
      }, 300);
    };
    source.addEventListener("review", recount);
    source.addEventListener("run", (e) => {
      const { run } = JSON.parse((e as MessageEvent<string>).data) as { run: { id: string; reviewId?: string | null } };
      const now = run.reviewId ?? null;
      if (openReview.get(run.id) !== now) recount();
      openReview.set(run.id, now);
    });
    return () => {
      source.close();
      if (timer) clearTimeout(timer);
    };
  }, []);
  return pending;
}

export function NavLinks({ pending: initial }: { pending: number }) {
  const path = usePathname();
  const pending = usePendingCount(initial);
  return (
    <nav className="-mx-2 flex w-full flex-wrap items-center gap-1 text-sm sm:mx-0 sm:w-auto sm:flex-nowrap sm:overflow-x-auto">
      {links.map((l) => {
        const active = l.href === "/" ? path === "/" || path.startsWith("/runs") : path === l.href || path.startsWith(`${l.href}/`);
        return (
          <Link key={l.href} href={l.href} className={`flex items-center gap-1.5 whitespace-nowrap rounded-md px-2 py-1.5 sm:px-3 ${active ? "bg-slate-900 text-white" : "text-slate-600 hover:bg-slate-100"}`}>
            {l.label}
            {l.href === "/review" && pending > 0 && (
              <span data-testid="pending-count" className={`rounded-full px-1.5 text-[11px] font-semibold ${active ? "bg-emerald-400 text-slate-900" : "bg-emerald-600 text-white"}`}>
                {pending}
              </span>
            )}
          </Link>
        );
      })}
    </nav>
  );
}
