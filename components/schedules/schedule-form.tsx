"use client";
// Create or edit a schedule. Every field's refusal shows next to it (the server's checks: the
// pattern, the time zone, the workflow's input schema, the run-name placeholders).
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { saveScheduleAction, type ScheduleForm, type ScheduleFormResult } from "@/app/schedules/actions";

export interface WorkflowOption {
  id: string;
  title: string;
  /** a user workflow's versions (empty: a built-in) */
  versions: number[];
  /** an example input, to start from */
  example: string;
}

type Field = keyof NonNullable<ScheduleFormResult["fieldErrors"]>;

const input = "w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-600 dark:bg-slate-950";

export function ScheduleFormPanel({ workflows, zones, initial, onDone }: { workflows: WorkflowOption[]; zones: string[]; initial?: ScheduleForm; onDone?: () => void }) {
  const router = useRouter();
  const first = workflows[0];
  const [f, setF] = useState<ScheduleForm>(
    initial ?? { name: "", workflow: first?.id ?? "", version: "", cron: "0 9 * * 1-5", timezone: "UTC", input: first?.example ?? "{}", runName: "", overlap: "skip", catchup: "none", paused: false },
  );
  const [result, setResult] = useState<ScheduleFormResult | null>(null);
  const [pending, start] = useTransition();
  const wf = workflows.find((w) => w.id === f.workflow);
  const set = <K extends keyof ScheduleForm>(k: K, v: ScheduleForm[K]) => setF((old) => ({ ...old, [k]: v }));
  const err = (k: Field) =>
    result?.fieldErrors?.[k] ? (
      <p className="mt-0.5 text-xs text-red-700 dark:text-red-400" data-field-error={k}>
        {result.fieldErrors[k]}
      </p>
    ) : null;
  const label = (text: string, k: Field, control: React.ReactNode, hint?: string) => (
    <label className="flex flex-col gap-1 text-sm">
      <span className="font-medium text-slate-700 dark:text-slate-300">{text}</span>
      {control}
      {hint && <span className="text-xs text-slate-600 dark:text-slate-400">{hint}</span>}
      {err(k)}
    </label>
  );

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    start(async () => {
      const r = await saveScheduleAction(f);
      setResult(r);
      if (r.ok) {
        onDone?.();
        router.refresh();
      }
    });
  };

  return (
    <form onSubmit={submit} noValidate className="grid gap-3 sm:grid-cols-2" data-testid="schedule-form">
      {label("Name", "name", <input className={input} name="name" value={f.name} onChange={(e) => set("name", e.target.value)} placeholder="Daily digest" />)}
      {label(
        "Workflow",
        "workflow",
        <select
          className={input}
          name="workflow"
          value={f.workflow}
          onChange={(e) => {
            const next = workflows.find((w) => w.id === e.target.value);
            setF((old) => ({ ...old, workflow: e.target.value, version: "", input: next?.example ?? old.input }));
          }}
        >
          {workflows.map((w) => (
            <option key={w.id} value={w.id}>
              {w.title}
            </option>
          ))}
        </select>,
      )}
      {label("Cron pattern", "cron", <input className={`${input} font-mono`} name="cron" value={f.cron} onChange={(e) => set("cron", e.target.value)} spellCheck={false} />, "5 fields (minute hour day month weekday), or 6 with seconds first")}
      {label(
        "Time zone",
        "timezone",
        <>
          <input className={input} name="timezone" list="schedule-zones" value={f.timezone} onChange={(e) => set("timezone", e.target.value)} spellCheck={false} />
          <datalist id="schedule-zones">
            {zones.map((z) => (
              <option key={z} value={z} />
            ))}
          </datalist>
        </>,
      )}
      {wf && wf.versions.length > 0 &&
        label(
          "Version",
          "version",
          <select className={input} name="version" value={f.version} onChange={(e) => set("version", e.target.value)}>
            <option value="">the latest when it fires</option>
            {wf.versions.map((v) => (
              <option key={v} value={String(v)}>
                v{v}
              </option>
            ))}
          </select>,
        )}
      {label(
        "If the previous run is still open",
        "overlap",
        <select className={input} name="overlap" value={f.overlap} onChange={(e) => set("overlap", e.target.value)}>
          <option value="skip">skip this fire</option>
          <option value="queue-one">queue one fire until it ends</option>
          <option value="allow">start another run anyway</option>
        </select>,
      )}
      {label(
        "After downtime",
        "catchup",
        <select className={input} name="catchup" value={f.catchup} onChange={(e) => set("catchup", e.target.value)}>
          <option value="none">skip missed fires</option>
          <option value="latest">run the latest missed fire once</option>
        </select>,
      )}
      <div className="sm:col-span-2">
        {label("Run input (JSON)", "input", <textarea className={`${input} h-28 font-mono text-xs`} name="input" value={f.input} onChange={(e) => set("input", e.target.value)} spellCheck={false} />)}
      </div>
      <div className="sm:col-span-2">
        {label("Run name", "runName", <input className={input} name="runName" value={f.runName} onChange={(e) => set("runName", e.target.value)} placeholder="{{schedule.name}} · {{fire.time}}" />, "Optional. Placeholders: {{schedule.name}}, {{fire.time}}, {{fire.iso}}, {{input.<field>}}")}
      </div>
      <label className="flex items-center gap-2 text-sm sm:col-span-2">
        <input type="checkbox" checked={f.paused} onChange={(e) => set("paused", e.target.checked)} name="paused" />
        <span>Paused (no fires until resumed)</span>
      </label>
      <div className="flex items-center gap-3 sm:col-span-2">
        <button disabled={pending} className="rounded-md bg-blue-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-700 disabled:opacity-50">
          {pending ? "Saving…" : initial?.id ? "Save changes" : "Create schedule"}
        </button>
        {onDone && (
          <button type="button" onClick={onDone} className="text-sm text-slate-700 hover:underline dark:text-slate-300">
            Cancel
          </button>
        )}
        {result?.error && (
          <span className="text-sm text-red-700 dark:text-red-400" role="alert">
            {result.error}
          </span>
        )}
      </div>
    </form>
  );
}
