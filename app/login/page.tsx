import { redirect } from "next/navigation";
import { LoginForm } from "@/components/auth/login-form";
import { authEnabled, sameSitePath } from "@/lib/auth/roles";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  if (!authEnabled()) redirect("/");
  const { next } = await searchParams;
  // only a path on this site
  const target = sameSitePath(next);
  return (
    <div className="mx-auto mt-16 max-w-sm rounded-xl border border-slate-200 bg-white p-6 dark:border-slate-700 dark:bg-slate-900">
      <h1 className="text-lg font-semibold">Sign in to Switchyard</h1>
      <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">Accounts are on for this instance. Ask an admin for an account (npm run user -- add).</p>
      <LoginForm next={target} />
    </div>
  );
}

