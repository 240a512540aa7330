import Link from "@/components/ui/link";

// 403: a server action (app/session.ts requireRole) needs a role the signed-in person does not have
export default function Forbidden() {
  return (
    <div className="mx-auto max-w-md py-20 text-center">
      <h1 className="text-xl font-semibold">Not allowed</h1>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">Your role does not allow this. Ask an admin for a role that does (viewer &lt; reviewer &lt; operator &lt; admin).</p>
      <Link href="/" className="mt-4 inline-block text-sm text-blue-700 dark:text-blue-400 underline">Back to runs</Link>
    </div>
  );
}
