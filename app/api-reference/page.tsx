import { requireViewer } from "@/app/session";
import { ApiReference } from "@/components/api/api-reference";

export const dynamic = "force-dynamic";
export const metadata = { title: "API reference" };

export default async function ApiReferencePage() {
  await requireViewer();
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-xl font-semibold tracking-tight">API reference</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Every route under <code>/api</code>, from{" "}
          <a className="text-blue-700 underline dark:text-blue-400" href="/api/openapi.json">
            /api/openapi.json
          </a>{" "}
          (OpenAPI 3.1): generate a client from it.
        </p>
      </div>
      <ApiReference url="/api/openapi.json" />
    </div>
  );
}
