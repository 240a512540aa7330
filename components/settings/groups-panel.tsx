"use client";
// The admin's Groups section on the Settings page: who is in which group (reviews are assigned and
// escalated to groups: a review step's assign and due.escalate, SWITCHYARD_REVIEW_ROUTES), add a
// person to a group, take them out. Plain forms: they work before the page's JavaScript has loaded.
import { useActionState } from "react";
import { groupAction, type GroupResult } from "@/app/settings/actions";
import type { GroupView } from "@/lib/auth/groups";

const field = "rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-950";

export function GroupsPanel({ groups, users }: { groups: GroupView[]; users: string[] }) {
  const [result, act, pending] = useActionState<GroupResult | null, FormData>(groupAction, null);
  return (
    <section className="rounded-xl border border-slate-200 bg-white p-4 dark:border-slate-700 dark:bg-slate-900" data-testid="groups">
      <h2 className="text-sm font-semibold">Groups</h2>
      <p className="mb-3 text-xs text-slate-600 dark:text-slate-400">
        A review assigned to groups (<code>assign</code>, <code>due.escalate</code>) can be decided only by their members and by admins. Also: <code className="whitespace-nowrap">npm run user -- group --name ana --add legal</code>.
      </p>
      {groups.length === 0 ? (
        <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">No groups yet.</p>
      ) : (
        <ul className="mb-3 divide-y divide-slate-100 text-sm dark:divide-slate-800">
          {groups.map((g) => (
            <li key={g.name} className="flex flex-wrap items-center gap-2 py-1.5" data-group={g.name}>
              <span className="w-40 shrink-0 font-mono">{g.name}</span>
              {g.members.map((m) => (
                <form key={m} action={act} className="inline-flex items-center gap-1 rounded-md bg-slate-100 px-2 py-0.5 text-xs dark:bg-slate-800">
                  <input type="hidden" name="op" value="remove" />
                  <input type="hidden" name="user" value={m} />
                  <input type="hidden" name="group" value={g.name} />
                  <span>{m}</span>
                  <button type="submit" disabled={pending} className="text-slate-600 hover:text-red-700 dark:text-slate-400" aria-label={`Remove ${m} from ${g.name}`} title={`Remove ${m} from ${g.name}`}>
                    ×
                  </button>
                </form>
              ))}
            </li>
          ))}
        </ul>
      )}
      <form action={act} className="flex flex-wrap items-end gap-2">
        <label className="text-xs text-slate-600 dark:text-slate-400">
          Person
          <select name="user" required className={`mt-0.5 block ${field}`} defaultValue="">
            <option value="" disabled>
              choose…
            </option>
            {users.map((u) => (
              <option key={u} value={u}>
                {u}
              </option>
            ))}
          </select>
        </label>
        <label className="text-xs text-slate-600 dark:text-slate-400">
          Group
          <input name="group" required maxLength={63} placeholder="legal" className={`mt-0.5 block ${field}`} />
        </label>
        <button type="submit" disabled={pending} className="rounded-md bg-blue-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-blue-700 disabled:opacity-50">
          Add to group
        </button>
      </form>
      {result && (
        <p role="status" className={`mt-2 text-sm ${result.ok ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400"}`}>
          {result.message}
        </p>
      )}
    </section>
  );
}
