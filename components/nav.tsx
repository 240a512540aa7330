import Link from "@/components/ui/link";
import { getRuntime } from "@/lib/runtime";
import type { NavLink } from "@/lib/machines/built-in";
import { NavLinks } from "./nav-links";

/** `signedIn` false (accounts on, nobody signed in): the links only, no pending count. `extra`: the workflows' links. */
export async function Nav({ signedIn, extra = [] }: { signedIn: boolean; extra?: NavLink[] }) {
  let pending = 0;
  if (signedIn) {
    try {
      const rt = await getRuntime();
      pending = (await rt.store.listReviews({ status: "pending", limit: 1_000 })).length;
    } catch {
      // the page itself reports storage problems
    }
  }
  return (
    <header className="sticky top-0 z-30 border-b border-slate-200 bg-white/90 backdrop-blur dark:border-slate-800 dark:bg-slate-950/90">
      <div className="mx-auto flex h-12 w-full max-w-[1440px] flex-nowrap items-center gap-x-2 px-3 sm:h-14 sm:gap-x-6 sm:px-6">
        <Link href="/" title="Switchyard" className="flex shrink-0 items-center gap-2 font-semibold tracking-tight text-slate-900 dark:text-slate-100">
          <svg width="22" height="22" viewBox="0 0 24 24" aria-hidden className="text-blue-600">
            <path d="M3 6h7l4 6 4-6h3M3 18h7l4-6" fill="none" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" strokeLinejoin="round" />
          </svg>
          <span className="sr-only sm:not-sr-only">Switchyard</span>
        </Link>
        <NavLinks pending={pending} live={signedIn} extra={extra} />
      </div>
    </header>
  );
}
