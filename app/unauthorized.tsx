import Link from "@/components/ui/link";

// 401: a server action (app/session.ts requireRole) came without a valid session
export default function Unauthorized() {
  return (
    <div className="mx-auto max-w-md py-20 text-center">
      <h1 className="text-xl font-semibold">Sign in first</h1>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">Your session has ended. Sign in again, then repeat what you were doing.</p>
      <Link href="/login" className="mt-4 inline-block text-sm text-blue-700 dark:text-blue-400 underline">Sign in</Link>
    </div>
  );
}
