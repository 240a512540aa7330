"use client";
import { Allowed } from "@/components/auth/role";
import { useRouter } from "next/navigation";
import { useActionState, useEffect, useRef, useState } from "react";
import { importTextAction, type PasteState } from "@/app/knowledge/actions";

// the same limits the server applies (lib/knowledge/documents.ts), checked here for instant feedback
const MAX_BYTES = 2 * 1024 * 1024;
const EXTENSIONS = [".md", ".markdown", ".txt", ".text", ".html", ".htm"];
// server actions accept bodies up to about 1 MB; larger texts go in as files
const MAX_PASTE_BYTES = 950_000;

interface FileResult {
  file: string;
  ok: boolean;
  error?: string;
  chunks?: number;
  duplicate?: boolean;
  embedded?: boolean;
  embedError?: string;
  document?: { id: string; title: string };
}

function extensionOf(name: string): string {
  const i = name.lastIndexOf(".");
  return i >= 0 ? name.slice(i).toLowerCase() : "";
}

function FileResults({ results }: { results: FileResult[] }) {
  return (
    <ul className="mt-2 space-y-1 text-xs" data-testid="kb-upload-results">
      {results.map((r, i) => (
        <li key={`${r.file}-${i}`} className={`rounded-md px-2 py-1 ${r.ok ? (r.duplicate ? "bg-slate-50 dark:bg-slate-800/60 text-slate-600" : "bg-emerald-50 text-emerald-800") : "bg-red-50 text-red-700"}`} data-ok={r.ok}>
          <span className="font-mono">{r.file}</span>
          {" — "}
          {r.ok ? (r.duplicate ? `already stored as “${r.document?.title}” (duplicate)` : `imported, ${r.chunks} chunk${r.chunks === 1 ? "" : "s"}`) : r.error}
          {r.ok && r.embedError && <span className="block text-amber-800 dark:text-amber-300">stored without embeddings: {r.embedError}</span>}
        </li>
      ))}
    </ul>
  );
}

function UploadForm() {
  const router = useRouter();
  const input = useRef<HTMLInputElement>(null);
  const [results, setResults] = useState<FileResult[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    const files = [...(input.current?.files ?? [])];
    setMessage(null);
    if (files.length === 0) {
      setResults([]);
      setMessage("Choose one or more files first.");
      return;
    }
    const local: FileResult[] = [];
    const form = new FormData();
    for (const f of files) {
      if (!EXTENSIONS.includes(extensionOf(f.name))) local.push({ file: f.name, ok: false, error: `unsupported file type: import ${EXTENSIONS.join(", ")} files` });
      else if (f.size > MAX_BYTES) local.push({ file: f.name, ok: false, error: `file is ${(f.size / 1024 / 1024).toFixed(1)} MB; the limit is 2 MB` });
      else if (f.size === 0) local.push({ file: f.name, ok: false, error: "document is empty" });
      else form.append("file", f);
    }
    let remote: FileResult[] = [];
    if (form.has("file")) {
      setBusy(true);
      try {
        const res = await fetch("/api/knowledge", { method: "POST", body: form });
        const body = (await res.json().catch(() => null)) as { results?: FileResult[]; error?: string } | null;
        if (body?.results) remote = body.results;
        else setMessage(body?.error ?? `upload failed (HTTP ${res.status})`);
      } catch {
        setMessage("upload failed: the server could not be reached");
      } finally {
        setBusy(false);
      }
    }
    // keep the order the files were chosen in
    const byName = new Map<string, FileResult[]>();
    for (const r of [...remote, ...local]) byName.set(r.file, [...(byName.get(r.file) ?? []), r]);
    setResults(files.flatMap((f) => byName.get(f.name)?.splice(0, 1) ?? []));
    if (remote.some((r) => r.ok)) {
      if (input.current) input.current.value = "";
      router.refresh();
    }
  };

  return (
    <form onSubmit={submit} className="space-y-2" data-testid="kb-upload">
      <label htmlFor="kb-files" className="block text-xs font-medium text-slate-600 dark:text-slate-400">Upload files</label>
      <input
        ref={input}
        id="kb-files"
        name="file"
        type="file"
        multiple
        accept={EXTENSIONS.join(",")}
        className="block w-full text-xs text-slate-600 dark:text-slate-400 file:mr-3 file:rounded-md file:border-0 file:bg-slate-100 file:px-3 file:py-1.5 file:text-xs file:font-medium file:text-slate-700 hover:file:bg-slate-200"
      />
      <p className="text-[11px] text-slate-600 dark:text-slate-400">Markdown, plain text or HTML; up to 2 MB each. Each file becomes one document.</p>
      <button type="submit" disabled={busy} className="w-full rounded-md bg-blue-600 px-3 py-2 text-sm font-medium text-white hover:bg-blue-700 disabled:opacity-60">
        {busy ? "Importing…" : "Import files"}
      </button>
      {message && <p className="rounded-md bg-red-50 px-2 py-1.5 text-xs text-red-700 dark:text-red-300 dark:bg-red-950">{message}</p>}
      {results.length > 0 && <FileResults results={results} />}
    </form>
  );
}

function PasteForm() {
  const [state, action, pending] = useActionState<PasteState, FormData>(importTextAction, { ok: true });
  const [tooLarge, setTooLarge] = useState<string | null>(null);
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (state.ok && state.imported && !state.imported.duplicate) form.current?.reset();
  }, [state]);
  const err: Record<string, string> = { ...(state.fieldErrors ?? {}), ...(tooLarge ? { text: tooLarge } : {}) };
  return (
    <form
      ref={form}
      action={action}
      onSubmit={(e) => {
        const text = new FormData(e.currentTarget).get("text");
        if (typeof text === "string" && new Blob([text]).size > MAX_PASTE_BYTES) {
          e.preventDefault();
          setTooLarge("too large to paste (about 1 MB at most here): save it as a file and upload it instead");
        } else setTooLarge(null);
      }}
      className="space-y-2"
      data-testid="kb-paste"
    >
      <div className="grid grid-cols-[1fr_110px] gap-2">
        <div>
          <label htmlFor="kb-title" className="block text-xs font-medium text-slate-600 dark:text-slate-400">Title (optional)</label>
          <input id="kb-title" name="title" maxLength={300} placeholder="From the first heading if empty" className="mt-1 w-full rounded-md border border-slate-300 dark:border-slate-600 px-2 py-1.5 text-sm" />
          {err.title && <p className="mt-1 text-xs text-red-600 dark:text-red-400">{err.title}</p>}
        </div>
        <div>
          <label htmlFor="kb-type" className="block text-xs font-medium text-slate-600 dark:text-slate-400">Format</label>
          <select id="kb-type" name="type" defaultValue="markdown" className="mt-1 w-full rounded-md border border-slate-300 dark:border-slate-600 bg-white dark:bg-slate-900 px-2 py-1.5 text-sm">
            <option value="markdown">Markdown</option>
            <option value="text">Plain text</option>
            <option value="html">HTML</option>
          </select>
          {err.type && <p className="mt-1 text-xs text-red-600 dark:text-red-400">{err.type}</p>}
        </div>
      </div>
      <div>
        <label htmlFor="kb-text" className="block text-xs font-medium text-slate-600 dark:text-slate-400">Text</label>
        <textarea id="kb-text" name="text" rows={6} placeholder={"# Heading\n\nPaste the document here…"} className="mt-1 w-full rounded-md border border-slate-300 dark:border-slate-600 px-2 py-1.5 font-mono text-xs" />
        {err.text && <p className="mt-1 text-xs text-red-600 dark:text-red-400" data-testid="kb-paste-error">{err.text}</p>}
      </div>
      <button type="submit" disabled={pending} className="w-full rounded-md bg-white dark:bg-slate-900 px-3 py-2 text-sm font-medium text-slate-800 dark:text-slate-200 ring-1 ring-slate-300 dark:ring-slate-600 hover:bg-slate-50 dark:hover:bg-slate-800/60 disabled:opacity-60">
        {pending ? "Importing…" : "Import text"}
      </button>
      {state.message && <p className="rounded-md bg-red-50 px-2 py-1.5 text-xs text-red-700 dark:text-red-300 dark:bg-red-950">{state.message}</p>}
      {state.ok && state.imported && !tooLarge && (
        <p className={`rounded-md px-2 py-1.5 text-xs ${state.imported.duplicate ? "bg-slate-50 dark:bg-slate-800/60 text-slate-600" : "bg-emerald-50 text-emerald-800"}`} data-testid="kb-paste-result">
          {state.imported.duplicate
            ? `Already stored as “${state.imported.title}” (duplicate): nothing new was imported.`
            : `Imported “${state.imported.title}”, ${state.imported.chunks} chunk${state.imported.chunks === 1 ? "" : "s"}.`}
          {state.imported.embedError && <span className="block text-amber-800 dark:text-amber-300">Stored without embeddings: {state.imported.embedError}</span>}
        </p>
      )}
    </form>
  );
}

/** The import card: file upload (through the REST API, per-file results) and a paste form (server action). */
function KbImportInner() {
  return (
    <div className="space-y-5">
      <UploadForm />
      <div className="border-t border-slate-100 dark:border-slate-800 pt-4">
        <PasteForm />
      </div>
    </div>
  );
}

/** offered to admins and above; others see why not */
export function KbImport() {
  return (
    <Allowed need="admin">
      <KbImportInner />
    </Allowed>
  );
}
