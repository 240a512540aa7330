"use client";
// The review inbox: a dense list of pending reviews (run, workflow, kind, state, age, due) with
// the selected one's decision panel beside it from 1024 px, or the list and then the review full
// screen on a phone. Filters, search and order live in the URL. Keys: j/k, a, r, e, c, o, ?.
// A review decided elsewhere stays where it was, greyed, with what the user wrote kept and a
// spoken note ("Rejected by ben · 2 s ago"). Several can be approved, rejected or aborted at once.
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState, useTransition } from "react";
import { abortAction, decideAction, type ActionResult } from "@/app/runs/[id]/actions";
import { useRole } from "@/components/auth/role";
import { ReviewerScope, storedReviewer, useReviewer } from "@/components/steps/reviewer";
import { bulkOutcome, type BulkAction, type BulkItem } from "@/components/runs/bulk-outcome";
import { applyFilter, filterQuery, type InboxFilter } from "./inbox-filter";
import { decidedText } from "./due";
import { ConfirmDialog, HelpOverlay } from "./inbox-dialogs";
import { InboxFilters } from "./inbox-filters";
import { InboxRow } from "./inbox-row";
import { InboxPanel } from "./inbox-panel";
import { filterable, type Gone, type InboxItem } from "./types";

export type { InboxItem } from "./types";

type Pending = { kind: "one"; action: "approve" | "reject"; id: string } | { kind: "bulk"; action: BulkAction };
const VERB: Record<BulkAction, string> = { approve: "Approve", reject: "Reject", abort: "Abort" };

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

/** `me`: the signed-in person's name and groups (accounts on), for assigned=me */
export function Inbox({ items, now, initialFilter, me: signedInAs = null }: { items: InboxItem[]; now: number; initialFilter: InboxFilter; me?: string[] | null }) {
  const router = useRouter();
  const { may } = useRole();
  const { name, setName, signedIn } = useReviewer();
  const [filter, setFilter] = useState(initialFilter);
  // reviews no longer pending that someone else decided: kept in place, greyed
  const [gone, setGone] = useState<Record<string, { item: InboxItem; info: Gone | null }>>({});
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [visited, setVisited] = useState<Set<string>>(new Set());
  const [checked, setChecked] = useState<Set<string>>(new Set());
  const [confirm, setConfirm] = useState<Pending | null>(null);
  const [help, setHelp] = useState(false);
  // the keys work once the page is hydrated and the handler below is on: said on the inbox as
  // data-keys="on", so a person's script (and the e2e specs) can wait for it instead of a key lost
  const [keysOn, setKeysOn] = useState(false);
  useEffect(() => setKeysOn(true), []);
  const [report, setReport] = useState<{ text: string; failures: string[] } | null>(null);
  const [announce, setAnnounce] = useState("");
  const [busy, start] = useTransition();
  // decisions sent from this page: their reviews leave the list instead of turning grey
  const sentHere = useRef(new Set<string>());
  const rowRefs = useRef(new Map<string, HTMLButtonElement>());
  const panelRefs = useRef(new Map<string, HTMLDivElement>());
  const side = useRef<HTMLDivElement>(null);

  // beside the list, the panel ends at the bottom of the screen (it scrolls within, its decisions
  // in view): its height follows where it starts
  useEffect(() => {
    const fit = () => {
      const el = side.current;
      if (!el) return;
      const top = Math.max(el.getBoundingClientRect().top, 64);
      el.style.setProperty("--inbox-panel-max", `${Math.max(320, window.innerHeight - top - 12)}px`);
    };
    fit();
    window.addEventListener("resize", fit);
    window.addEventListener("scroll", fit, { passive: true });
    return () => {
      window.removeEventListener("resize", fit);
      window.removeEventListener("scroll", fit);
    };
  }, []);

  // the filter in the URL, without a round trip
  useEffect(() => {
    window.history.replaceState(window.history.state, "", `/review${filterQuery(filter)}`);
  }, [filter]);

  // what left the pending list and was not decided here stays, greyed (decided while rendering,
  // so its panel, and what was written in it, is never unmounted in between)
  const [previous, setPrevious] = useState(items);
  if (previous !== items) {
    const present = new Set(items.map((i) => i.review.id));
    const left = previous.filter((i) => !present.has(i.review.id) && !sentHere.current.has(i.review.id));
    setPrevious(items);
    if (left.length) setGone((g) => ({ ...g, ...Object.fromEntries(left.filter((i) => !g[i.review.id]).map((i) => [i.review.id, { item: i, info: null }])) }));
  }
  useEffect(() => {
    const present = new Set(items.map((i) => i.review.id));
    setChecked((s) => new Set([...s].filter((id) => present.has(id))));
  }, [items]);
  // then ask who decided each
  const asked = useRef(new Set<string>());
  useEffect(() => {
    for (const { item, info } of Object.values(gone)) {
      if (info || asked.current.has(item.review.id)) continue;
      asked.current.add(item.review.id);
      void fetch(`/api/reviews/${encodeURIComponent(item.review.id)}`, { cache: "no-store" })
        .then((r) => (r.ok ? (r.json() as Promise<Gone>) : null))
        .catch(() => null)
        .then((found) => {
          const g: Gone = found ?? { status: "cancelled", decision: null, reviewer: null, decidedAt: null };
          setGone((all) => (all[item.review.id] ? { ...all, [item.review.id]: { item, info: g } } : all));
          setAnnounce(`“${item.name}”: ${decidedText(g)}. What you wrote is kept.`);
        });
    }
  }, [gone]);

  const all = useMemo(() => {
    const live = new Set(items.map((i) => i.review.id));
    return [...items, ...Object.values(gone).filter((g) => !live.has(g.item.review.id)).map((g) => g.item)];
  }, [items, gone]);
  // accounts off: groups are labels, and "me" is the name typed here
  const me = useMemo(() => signedInAs ?? (name ? [name] : []), [signedInAs, name]);
  const shown = useMemo(() => applyFilter(all.map((item) => ({ ...filterable(item), item })), filter, me).map((x) => x.item), [all, filter, me]);
  // a review that gave way to the next one of the same run (a quorum's next round) stays selected
  const selectedRun = useRef<string | null>(null);
  const current = shown.find((i) => i.review.id === selectedId) ?? shown.find((i) => i.review.runId === selectedRun.current) ?? shown[0] ?? null;
  const currentId = current?.review.id ?? null;
  selectedRun.current = current?.review.runId ?? selectedRun.current;

  useEffect(() => {
    if (currentId) setVisited((v) => (v.has(currentId) ? v : new Set(v).add(currentId)));
  }, [currentId]);

  const select = useCallback((id: string, how: "key" | "click") => {
    setSelectedId(id);
    if (how === "key") {
      const row = rowRefs.current.get(id);
      row?.focus();
      row?.scrollIntoView({ block: "nearest" });
    }
  }, []);

  const openReview = (id: string) => {
    setSelectedId(id);
    setOpen(true);
    // on a phone the list gives way to the review: move there (the heading reads what it is)
    requestAnimationFrame(() => {
      if (window.matchMedia("(max-width: 1023.98px)").matches) {
        panelRefs.current.get(id)?.querySelector<HTMLElement>("[data-panel-heading]")?.focus();
        window.scrollTo({ top: 0 });
      }
    });
  };

  const back = () => {
    setOpen(false);
    if (currentId) requestAnimationFrame(() => rowRefs.current.get(currentId)?.focus());
  };

  const panelOf = (id: string) => panelRefs.current.get(id) ?? null;
  const clickDecision = (id: string, decision: string) => {
    const b = panelOf(id)?.querySelector<HTMLButtonElement>(`[data-decision="${decision}"]`);
    if (!b) return false;
    b.click();
    return true;
  };

  const ask = (action: "approve" | "reject") => {
    if (!current) return;
    if (gone[current.review.id]) return setReport({ text: `“${current.name}” was decided elsewhere: it takes no more decisions.`, failures: [] });
    if (!may("reviewer")) return setReport({ text: "Your role cannot decide reviews.", failures: [] });
    const b = panelOf(current.review.id)?.querySelector(`[data-decision="${action}"]`);
    if (!b) {
      const decisions = current.review.decisions ?? current.decisions ?? [];
      return setReport({ text: `“${current.name}” has no ${action} decision here (${decisions.join(", ")}): decide it with its own buttons.`, failures: [] });
    }
    setConfirm({ kind: "one", action, id: current.review.id });
  };

  const edit = () => {
    if (!current) return;
    setOpen(true);
    const panel = panelOf(current.review.id);
    const control = panel?.querySelector<HTMLElement>('[data-decision="edit"]:not([disabled]), [data-edit]:not([disabled])');
    if (control) control.click();
    else panel?.querySelector<HTMLElement>("textarea")?.focus();
  };

  const changes = () => {
    if (!current) return;
    setOpen(true);
    const panel = panelOf(current.review.id);
    const field = panel?.querySelector<HTMLTextAreaElement>("textarea[data-feedback], textarea");
    field?.focus();
    setReport({ text: panel?.querySelector('[data-decision="modify"]') ? "Write what should change, then press Request changes." : "Write your note or response, then choose a decision.", failures: [] });
  };

  const latest = useRef({ shown, currentId, confirm, help, open });
  latest.current = { shown, currentId, confirm, help, open };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const s = latest.current;
      if (s.confirm || s.help || e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key === "Escape" && s.open && !typing(e.target)) return back();
      if (typing(e.target)) return;
      const at = s.shown.findIndex((i) => i.review.id === s.currentId);
      const to = (i: number) => s.shown[Math.max(0, Math.min(s.shown.length - 1, i))];
      switch (e.key) {
        case "j": {
          const n = to(at + 1);
          if (n) select(n.review.id, "key");
          break;
        }
        case "k": {
          const n = to(at - 1);
          if (n) select(n.review.id, "key");
          break;
        }
        case "a":
          ask("approve");
          break;
        case "r":
          ask("reject");
          break;
        case "e":
          edit();
          break;
        case "c":
          changes();
          break;
        case "o":
          if (s.currentId) {
            const item = s.shown.find((i) => i.review.id === s.currentId);
            if (item) router.push(`/runs/${item.review.runId}`);
          }
          break;
        case "/":
          document.getElementById("inbox-search")?.focus();
          break;
        case "?":
          setHelp(true);
          break;
        default:
          return;
      }
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  const runBulk = (action: BulkAction) =>
    start(async () => {
      const chosen = shown.filter((i) => checked.has(i.review.id) && !gone[i.review.id]);
      const results: BulkItem[] = [];
      for (const item of chosen) {
        const decisions = item.review.decisions ?? item.decisions ?? ["approve", "reject", "modify"];
        let r: ActionResult;
        sentHere.current.add(item.review.id);
        if (action === "abort") r = await abortAction({ runId: item.review.runId, reason: "aborted from the review queue" });
        else if (!decisions.includes(action)) r = { ok: false, error: `no ${action} decision here (${decisions.join(", ")})` };
        else r = await decideAction({ reviewId: item.review.id, decision: action, reviewer: signedIn ? undefined : storedReviewer() || undefined });
        if (!r.ok) sentHere.current.delete(item.review.id);
        results.push({ name: item.name, ok: r.ok, error: r.error });
      }
      setReport(bulkOutcome(action, results));
      setChecked(new Set());
      router.refresh();
    });

  const dismiss = (id: string) => {
    setGone((g) => {
      const n = { ...g };
      delete n[id];
      return n;
    });
    sentHere.current.add(id);
  };

  const live = shown.filter((i) => !gone[i.review.id]);
  const allChecked = live.length > 0 && live.every((i) => checked.has(i.review.id));
  const btn = "rounded-md px-2.5 py-1 text-xs font-medium disabled:opacity-50";
  const workflows = useMemo(() => [...new Map(all.map((i) => [i.review.workflow, i.workflowTitle])).entries()].sort((a, b) => a[1].localeCompare(b[1])), [all]);
  const kinds = useMemo(() => [...new Set(all.map((i) => i.review.kind))].sort(), [all]);
  const groups = useMemo(() => [...new Set(all.flatMap((i) => i.review.assignedTo ?? []))].sort(), [all]);
  const dated = all.some((i) => i.review.dueAt);
  const pendingItem = confirm?.kind === "one" ? all.find((i) => i.review.id === confirm.id) : undefined;

  return (
    <ReviewerScope.Provider value="page">
      <div className="space-y-3" data-testid="inbox" data-open={open ? "true" : undefined} data-keys={keysOn ? "on" : undefined}>
        <div className={`flex flex-wrap items-end gap-x-4 gap-y-2 ${open ? "hidden lg:flex" : ""}`}>
          <InboxFilters filter={filter} onChange={setFilter} workflows={workflows} kinds={kinds} groups={groups} dated={dated} total={all.length} shown={shown.length} />
          <div className="ml-auto flex items-end gap-2">
            {signedIn ? (
              <p className="text-xs text-slate-600 dark:text-slate-300" data-testid="deciding-as">
                deciding as <strong className="text-slate-800 dark:text-slate-100">{signedIn}</strong>
              </p>
            ) : (
              <label className="text-xs font-medium text-slate-700 dark:text-slate-200">
                Deciding as
                <input value={name} onChange={(e) => setName(e.target.value)} placeholder="Your name (remembered here)" autoComplete="name" className="mt-0.5 block h-8 w-52 rounded-md border border-slate-300 bg-white px-2 text-sm font-normal dark:border-slate-600 dark:bg-slate-900" data-testid="deciding-as" />
              </label>
            )}
            <button type="button" onClick={() => setHelp(true)} className="hidden h-8 rounded-md px-2 text-xs text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50 lg:inline-block dark:text-slate-200 dark:ring-slate-600 dark:hover:bg-slate-800" aria-keyshortcuts="?" data-testid="keyboard-hint">
              Keys <kbd className="font-mono">?</kbd>
            </button>
          </div>
        </div>

        <div aria-live="polite" className="sr-only" data-testid="inbox-announce">
          {announce}
        </div>
        {report && (
          <div role="status" className={`rounded-lg px-3 py-2 text-sm ${report.failures.length ? "bg-amber-50 text-amber-900 dark:bg-amber-950 dark:text-amber-100" : "bg-emerald-50 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100"}`} data-testid="bulk-result">
            <p>{report.text}</p>
            {report.failures.length > 0 && (
              <ul className="mt-1 list-disc pl-5 text-xs">
                {report.failures.map((f) => (
                  <li key={f}>{f}</li>
                ))}
              </ul>
            )}
          </div>
        )}

        <div className="grid gap-4 lg:grid-cols-[minmax(0,5fr)_minmax(0,7fr)] lg:items-start">
          <section aria-label="Pending reviews" className={`min-w-0 overflow-hidden rounded-xl border border-slate-200 bg-white dark:border-slate-700 dark:bg-slate-900 ${open ? "hidden lg:block" : ""}`}>
            <div className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-3 py-1.5 text-xs dark:border-slate-700" data-testid="bulk-bar">
              <label className="flex items-center gap-2 text-slate-700 dark:text-slate-200">
                <input type="checkbox" checked={allChecked} onChange={() => setChecked(allChecked ? new Set() : new Set(live.map((i) => i.review.id)))} aria-label="Select all" className="h-4 w-4" />
                <span data-testid="selected-count">{checked.size ? `${checked.size} selected` : "Select"}</span>
              </label>
              {may("reviewer") && (
                <>
                  <button disabled={!checked.size || busy} onClick={() => setConfirm({ kind: "bulk", action: "approve" })} className={`${btn} bg-emerald-700 text-white hover:bg-emerald-800`}>Approve selected</button>
                  <button disabled={!checked.size || busy} onClick={() => setConfirm({ kind: "bulk", action: "reject" })} className={`${btn} bg-white text-red-700 ring-1 ring-red-300 hover:bg-red-50 dark:bg-slate-900 dark:text-red-300`}>Reject selected</button>
                </>
              )}
              {may("operator") && (
                <button disabled={!checked.size || busy} onClick={() => setConfirm({ kind: "bulk", action: "abort" })} className={`${btn} bg-white text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50 dark:bg-slate-900 dark:text-slate-200 dark:ring-slate-600`}>Abort selected</button>
              )}
              {busy && <span className="text-slate-600 dark:text-slate-300">Working…</span>}
            </div>
            {shown.length === 0 ? (
              <p className="px-3 py-6 text-center text-sm text-slate-600 dark:text-slate-300" data-testid="inbox-empty">
                {all.length ? "No review matches these filters." : "Nothing is waiting for a person right now."}
              </p>
            ) : (
              <ul className="divide-y divide-slate-100 dark:divide-slate-800" data-testid="review-queue">
                {shown.map((item) => (
                  <InboxRow
                    key={item.review.id}
                    item={item}
                    now={now}
                    selected={item.review.id === currentId}
                    checked={checked.has(item.review.id)}
                    gone={gone[item.review.id] ? (gone[item.review.id]!.info ?? "loading") : null}
                    onCheck={() =>
                      setChecked((s) => {
                        const n = new Set(s);
                        if (n.has(item.review.id)) n.delete(item.review.id);
                        else n.add(item.review.id);
                        return n;
                      })
                    }
                    onOpen={() => openReview(item.review.id)}
                    onFocus={() => setSelectedId(item.review.id)}
                    rowRef={(el) => {
                      if (el) rowRefs.current.set(item.review.id, el);
                      else rowRefs.current.delete(item.review.id);
                    }}
                  />
                ))}
              </ul>
            )}
          </section>

          <div ref={side} className={`min-w-0 lg:sticky lg:top-16 ${open ? "" : "hidden lg:block"}`}>
            {all
              .filter((i) => visited.has(i.review.id) || i.review.id === currentId)
              .map((item) => (
                <InboxPanel
                  key={item.review.id}
                  item={item}
                  now={now}
                  hidden={item.review.id !== currentId}
                  gone={gone[item.review.id] ? (gone[item.review.id]!.info ?? "loading") : null}
                  onBack={back}
                  onDismiss={() => dismiss(item.review.id)}
                  onSending={() => sentHere.current.add(item.review.id)}
                  onDone={(r) => {
                    if (r.ok) {
                      setAnnounce(`Decision sent for “${item.name}”.`);
                      setOpen(false);
                    } else sentHere.current.delete(item.review.id);
                  }}
                  panelRef={(el) => {
                    if (el) panelRefs.current.set(item.review.id, el);
                    else panelRefs.current.delete(item.review.id);
                  }}
                />
              ))}
            {!current && <p className="hidden rounded-xl border border-dashed border-slate-300 p-6 text-center text-sm text-slate-600 lg:block dark:border-slate-700 dark:text-slate-300">Select a review to decide it.</p>}
          </div>
        </div>

        {confirm && (
          <ConfirmDialog
            title={confirm.kind === "one" ? `${VERB[confirm.action]} “${pendingItem?.name ?? "this review"}”?` : `${VERB[confirm.action]} ${checked.size} selected review${checked.size === 1 ? "" : "s"}?`}
            body={confirm.kind === "one" ? "The decision goes with the feedback and edits written in this review." : confirm.action === "abort" ? "Each run stops where it is (where its workflow has an abort of its own, like Swiss Army Knife's request, that runs); its review closes." : "Each goes without feedback or edits."}
            action={VERB[confirm.action]}
            danger={confirm.action !== "approve"}
            onCancel={() => setConfirm(null)}
            onConfirm={() => {
              const c = confirm;
              setConfirm(null);
              if (c.kind === "one") {
                clickDecision(c.id, c.action);
                setReport(null);
                rowRefs.current.get(c.id)?.focus();
              } else runBulk(c.action);
            }}
          />
        )}
        {help && <HelpOverlay onClose={() => setHelp(false)} />}
      </div>
    </ReviewerScope.Provider>
  );
}
