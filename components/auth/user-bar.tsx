"use client";
// Who is signed in, and a way out (shown only with accounts on).
export function UserBar({ name, role }: { name: string; role: string }) {
  return (
    <div className="mx-auto flex w-full max-w-[1440px] justify-end gap-3 px-4 pt-2 text-xs text-slate-600 dark:text-slate-400 sm:px-6" data-testid="user-bar">
      <span>
        signed in as <strong className="text-slate-700 dark:text-slate-300">{name}</strong> ({role})
      </span>
      <button
        className="text-blue-700 dark:text-blue-400 underline"
        onClick={async () => {
          await fetch("/api/auth/logout", { method: "POST" });
          window.location.href = "/login";
        }}
      >
        Sign out
      </button>
    </div>
  );
}
