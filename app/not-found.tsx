import Link from "@/components/ui/link";

export default function NotFound() {
  return (
    <div className="mx-auto max-w-md py-20 text-center">
      <h1 className="text-xl font-semibold">Not found</h1>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">There is no run, review or workflow at this address.</p>
      <Link href="/" className="mt-4 inline-block text-sm text-blue-700 dark:text-blue-400 underline">Back to runs</Link>
    </div>
  );
}
