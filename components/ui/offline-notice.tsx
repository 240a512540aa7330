import Link from "@/components/ui/link";

/** One line on pages that show answers, when no model endpoint is configured. */
export function OfflineNotice() {
  return (
    <p className="rounded-md border border-slate-200 dark:border-slate-700 bg-slate-50 dark:bg-slate-800/60 px-3 py-1.5 text-xs text-slate-600 dark:text-slate-400" data-testid="offline-notice">
      No model is connected: answers are quoted from stored passages by the offline engine, not written by a model. To connect one, set{" "}
      <code className="font-mono">OPENAI_BASE_URL</code>, <code className="font-mono">OPENAI_API_KEY</code> and <code className="font-mono">OPENAI_MODEL</code>, then restart;{" "}
      <Link href="/settings" className="text-blue-700 dark:text-blue-400 underline">
        Settings
      </Link>{" "}
      shows how.
    </p>
  );
}
