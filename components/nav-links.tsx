"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";

const links = [
  { href: "/", label: "Runs" },
  { href: "/review", label: "Review queue" },
  { href: "/workflows", label: "Workflows" },
  { href: "/knowledge", label: "Knowledge" },
  { href: "/settings", label: "Settings" },
];

export function NavLinks({ pending }: { pending: number }) {
  const path = usePathname();
  return (
    <nav className="flex items-center gap-1 overflow-x-auto text-sm">
      {links.map((l) => {
        const active = l.href === "/" ? path === "/" || path.startsWith("/runs") : path.startsWith(l.href);
        return (
          <Link key={l.href} href={l.href} className={`flex items-center gap-1.5 whitespace-nowrap rounded-md px-3 py-1.5 ${active ? "bg-slate-900 text-white" : "text-slate-600 hover:bg-slate-100"}`}>
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
