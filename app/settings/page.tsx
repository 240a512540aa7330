import Link from "@/components/ui/link";
import { describeEndpoints } from "@/lib/llm/endpoints";
import { getRuntime, type Runtime } from "@/lib/runtime";
import { settingsPanels } from "@/app/catalog";
import { TestConnection } from "@/components/settings/test-connection";
import { currentUser, requireViewer } from "@/app/session";
import { GroupsPanel } from "@/components/settings/groups-panel";
import { listGroups } from "@/lib/auth/groups";
import { authEnabled } from "@/lib/auth/roles";

export const dynamic = "force-dynamic";
export const metadata = { title: "Settings" };

function Row({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid grid-cols-[160px_1fr] gap-3 py-1.5 text-sm">
      <div className="text-slate-600 dark:text-slate-400">{label}</div>
      <div className="min-w-0 break-words text-slate-800 dark:text-slate-200">{children}</div>
    </div>
  );
}

function maskUrl(url: string) {
  return url.replace(/\/\/([^:@/]+):[^@/]+@/, "//$1:•••@");
}

export default async function Settings() {
  await requireViewer();
  const rt = await getRuntime();
  // the workflows' panels for this page (the Context Manager's, …)
  const panels = (await settingsPanels()) as React.ComponentType<{ rt: Runtime }>[];
  // groups (review routing) are the admin's to set, with accounts on
  const who = await currentUser();
  const groups = authEnabled() && who?.role === "admin" ? { list: await listGroups(rt.db), users: (await rt.db.user.findMany({ where: { disabled: false }, orderBy: { name: "asc" }, select: { name: true } })).map((u) => u.name) } : null;
  const info = rt.llm ? describeEndpoints(rt.llm) : null;
  const search = process.env.SWITCHYARD_SEARCH_URL;
  return (
    <div className="mx-auto max-w-4xl space-y-4">
      <div>
        <h1 className="text-xl font-semibold tracking-tight">Settings</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">What this server runs with. Settings come from environment variables (see the README); secrets are never shown.</p>
      </div>

      <section className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4" data-testid="model-settings">
        <div className="mb-2 flex items-center justify-between">
          <h2 className="text-sm font-semibold">Model</h2>
          <span className={`rounded-full px-2 py-0.5 text-[11px] font-semibold ${rt.model.offline ? "bg-slate-100 dark:bg-slate-800 text-slate-700 dark:text-slate-200" : "bg-blue-100 text-blue-800 dark:bg-blue-950 dark:text-blue-200"}`} data-testid="adapter">
            {rt.model.offline ? "offline engine" : "OpenAI-compatible endpoints"}
          </span>
        </div>
        {rt.model.offline ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            No model endpoint is configured, so the <strong>offline engine</strong> does the thinking: keyword classification, BM25 retrieval and extractive
            answers that quote and cite what they use. Every output says so. To use a model, set <code className="rounded bg-slate-100 dark:bg-slate-800 px-1">OPENAI_API_KEY</code>,{" "}
            <code className="rounded bg-slate-100 dark:bg-slate-800 px-1">OPENAI_BASE_URL</code> (OpenAI, Azure, Ollama, vLLM, LM Studio, llama.cpp) and{" "}
            <code className="rounded bg-slate-100 dark:bg-slate-800 px-1">OPENAI_MODEL</code>; add fallbacks with <code className="rounded bg-slate-100 dark:bg-slate-800 px-1">SWITCHYARD_LLM_ENDPOINTS</code>.
          </p>
        ) : (
          <div className="space-y-3">
            <p className="text-xs text-slate-600 dark:text-slate-400">
              Tried in this order. Retryable errors (network, rate limits, 5xx, timeouts) are retried {info?.maxRetries} time(s) per endpoint with exponential backoff from{" "}
              {info?.backoffMs} ms (a server's Retry-After wins), then the next endpoint is used; each attempt times out after {info?.timeoutMs} ms.
            </p>
            {info?.endpoints.map((e, i) => (
              <div key={e.name} className="rounded-lg border border-slate-200 dark:border-slate-700 p-3" data-endpoint={e.name}>
                <div className="mb-1 text-xs font-semibold text-slate-600 dark:text-slate-400">
                  {i + 1}. {e.name}
                </div>
                <Row label="Base URL">{maskUrl(e.baseURL)}</Row>
                <Row label="Model">{e.model}</Row>
                <Row label="API key">{e.keySet ? <span className="font-mono">{e.maskedKey}</span> : "none (local server)"}</Row>
                {e.azure && <Row label="Azure">deployment {e.azure.deployment}, api-version {e.azure.apiVersion}</Row>}
                <TestConnection name={e.name} />
              </div>
            ))}
          </div>
        )}
        <div className="mt-3 border-t border-slate-100 dark:border-slate-800 pt-2">
          <Row label="Embeddings">{info?.embeddings ? `${info.embeddings.model} @ ${maskUrl(info.embeddings.baseURL)} (hybrid search on)` : "not configured: search uses BM25 only"}</Row>
          <Row label="Web search">{search ? `SearxNG at ${maskUrl(search)}` : "not configured: research searches the knowledge store"}</Row>
        </div>
      </section>

      <section className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4">
        <h2 className="mb-2 text-sm font-semibold">Storage</h2>
        <Row label="Database">{rt.provider === "sqlite" ? `SQLite ${maskUrl(rt.url)}` : maskUrl(rt.url)}</Row>
        <Row label="Durability">{process.env.SWITCHYARD_DURABILITY === "full" ? "full (synchronous=FULL: survives power loss)" : "normal (WAL, synchronous=NORMAL: survives a process crash)"}</Row>
      </section>

      {groups && <GroupsPanel groups={groups.list} users={groups.users} />}
      {!authEnabled() && (
        <section className="rounded-xl border border-slate-200 bg-white p-4 text-sm dark:border-slate-700 dark:bg-slate-900" data-testid="groups-off">
          <h2 className="mb-1 text-sm font-semibold">Groups</h2>
          <p className="text-slate-600 dark:text-slate-400">Accounts are off (SWITCHYARD_AUTH): the groups reviews are assigned to are labels that route and filter the queue; anyone may decide.</p>
        </section>
      )}

      <section className="rounded-xl border border-slate-200 dark:border-slate-700 bg-white dark:bg-slate-900 p-4" data-testid="api-settings">
        <h2 className="mb-2 text-sm font-semibold">API</h2>
        <p className="text-sm text-slate-600 dark:text-slate-300">
          Every route under <code>/api</code> is described by <a className="text-blue-700 underline dark:text-blue-400" href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1): browse it in the{" "}
          <Link className="text-blue-700 underline dark:text-blue-400" href="/api-reference">
            API reference
          </Link>
          , or generate a client from it.
        </p>
      </section>

      {panels.map((Panel, i) => (
        <Panel key={i} rt={rt} />
      ))}
    </div>
  );
}
