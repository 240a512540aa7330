"use client";
import Link from "@/components/ui/link";
import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";
import type { NavLink } from "@/lib/machines/built-in";

// On a phone (under 640 px) the nav stays on one line: the first three keep a short label, the
// rest show an icon; every link keeps its full name for screen readers and a tooltip. The pending
// count shows at most "99+" so the line fits at 390 px with every workflow's link; were the links
// ever wider than the screen, the nav scrolls on its own and the page does not.
const links: { href: string; label: string; short?: string; icon?: React.ReactNode }[] = [
  { href: "/", label: "Runs" },
  { href: "/review", label: "Review queue", short: "Review" },
  { href: "/workflows", label: "Workflows" },
  { href: "/schedules", label: "Schedules", icon: <path d="M12 7v5l3 2M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z" /> },
  { href: "/evals", label: "Evals", icon: <path d="M4 20V11M10 20V5M16 20v-6M2 20h20" /> },
  { href: "/knowledge", label: "Knowledge", icon: <path d="M5 4h10a4 4 0 0 1 4 4v12H9a4 4 0 0 1-4-4zM5 16a4 4 0 0 1 4-4h10" /> },
  {
    href: "/settings",
    label: "Settings",
    icon: (
      <>
        <circle cx="12" cy="12" r="3" />
        <path d="M12 2v3M12 19v3M2 12h3M19 12h3M4.9 4.9l2.1 2.1M17 17l2.1 2.1M4.9 19.1 7 17M17 7l2.1-2.1" />
      </>
    ),
  },
];

/**
 * The pending-review count, kept current from the live stream of all runs: it is fetched again
 * when a review event arrives or a run's open review changes (not on every transition).
 */
function usePendingCount(initial: number, live: boolean): number {
  const [pending, setPending] = useState(initial);
  useEffect(() => setPending(initial), [initial]);
  useEffect(() => {
    // the sign-in page has no session yet: the stream would answer 401
    if (!live) return;
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
  }, [live]);
  return pending;
}

/** the core's links with the workflows' (`extra`, from their entries' `nav`) after Evals */
function withExtra(extra: NavLink[]): typeof links {
  const at = links.findIndex((l) => l.href === "/evals") + 1;
  const added = extra.map((l) => ({ href: l.href, label: l.label, ...(l.icon ? { icon: <path d={l.icon} /> } : {}) }));
  return [...links.slice(0, at), ...added, ...links.slice(at)];
}

export function NavLinks({ pending: initial, live, extra = [] }: { pending: number; live: boolean; extra?: NavLink[] }) {
  const path = usePathname();
  const pending = usePendingCount(initial, live && !path.startsWith("/login"));
  return (
    <nav className="flex min-w-0 flex-nowrap items-center gap-0.5 overflow-x-auto text-xs sm:gap-1 sm:text-sm" data-testid="nav">
      {withExtra(extra).map((l) => {
        const active = l.href === "/" ? path === "/" || path.startsWith("/runs") : path === l.href || path.startsWith(`${l.href}/`);
        return (
          <Link key={l.href} href={l.href} title={l.label} className={`flex items-center gap-1 whitespace-nowrap rounded-md px-1 py-1.5 sm:gap-1.5 sm:px-3 ${active ? "bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900" : "text-slate-600 hover:bg-slate-100 dark:text-slate-300 dark:hover:bg-slate-800"}`}>
            {l.icon ? (
              <>
                <svg width="16" height="16" viewBox="0 0 24 24" aria-hidden className="sm:hidden" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round">
                  {l.icon}
                </svg>
                <span className="sr-only sm:not-sr-only">{l.label}</span>
              </>
            ) : l.short ? (
              <span>
                {l.short}
                <span className="sr-only sm:not-sr-only">{l.label.slice(l.short.length)}</span>
              </span>
            ) : (
              l.label
            )}
            {l.href === "/review" && pending > 0 && (
              <span data-testid="pending-count" className={`rounded-full px-1.5 text-[11px] font-semibold ${active ? "bg-emerald-400 text-slate-900" : "bg-emerald-600 text-white"}`}>
                {pending > 99 ? "99+" : pending}
              </span>
            )}
          </Link>
        );
      })}
    </nav>
  );
}
