"use client";
import { useState } from "react";

export function LoginForm({ next }: { next: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="mt-4 space-y-3 text-sm"
      onSubmit={async (e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        setBusy(true);
        const res = await fetch("/api/auth/login", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: form.get("name"), password: form.get("password") }) });
        setBusy(false);
        if (res.ok) window.location.href = next;
        else setError(((await res.json().catch(() => ({}))) as { error?: string }).error ?? `HTTP ${res.status}`);
      }}
    >
      <label className="block">
        <span className="text-slate-600 dark:text-slate-300">Name</span>
        <input name="name" autoComplete="username" required className="mt-0.5 w-full rounded-md border border-slate-300 px-2 py-1 dark:border-slate-600 dark:bg-slate-950" />
      </label>
      <label className="block">
        <span className="text-slate-600 dark:text-slate-300">Password</span>
        <input name="password" type="password" autoComplete="current-password" required className="mt-0.5 w-full rounded-md border border-slate-300 px-2 py-1 dark:border-slate-600 dark:bg-slate-950" />
      </label>
      {error && <p className="text-red-700 dark:text-red-300" role="alert">{error}</p>}
      <button disabled={busy} className="w-full rounded-md bg-slate-900 py-1.5 text-white disabled:opacity-50 dark:bg-slate-100 dark:text-slate-900">{busy ? "Signing in…" : "Sign in"}</button>
    </form>
  );
}
