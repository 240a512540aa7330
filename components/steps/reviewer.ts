"use client";
// Who decides a review. With accounts on, the signed-in person: the server records their name
// whatever the form says. With accounts off, the name the reviewer types, remembered in this
// browser (localStorage) and sent with each decision, so two people approving from the queue
// are two approvers.
import { createContext, useContext, useEffect, useState } from "react";

/**
 * Where the "deciding as" name is typed: "panel" (each decision panel has its field, as on a run
 * page) or "page" (one field for the whole page, as in the review inbox; the panels have none).
 */
export const ReviewerScope = createContext<"panel" | "page">("panel");

/** whether this panel shows a name field of its own (accounts off and no page-wide field) */
export function useOwnNameField(signedIn: string | null): boolean {
  return useContext(ReviewerScope) === "panel" && !signedIn;
}

export const REVIEWER_KEY = "switchyard.reviewer";

/** The name this browser decides under (accounts off), or "". */
export function storedReviewer(): string {
  try {
    return window.localStorage.getItem(REVIEWER_KEY) ?? "";
  } catch {
    return "";
  }
}

function remember(name: string) {
  try {
    if (name.trim()) window.localStorage.setItem(REVIEWER_KEY, name.trim());
    else window.localStorage.removeItem(REVIEWER_KEY);
  } catch {
    // storage off (private mode): the name is used for this page only
  }
}

type Me = { accounts: boolean; user: { name: string } | null };
let me: Promise<Me | null> | null = null;

/** Accounts on or off, and who is signed in (asked once per page load). */
function whoAmI(): Promise<Me | null> {
  me ??= fetch("/api/auth/me")
    .then((r) => (r.ok ? (r.json() as Promise<Me>) : null))
    .catch(() => null);
  return me;
}

/** The reviewer's name: the signed-in user's (accounts on, not editable) or the remembered one. */
export function useReviewer(): { name: string; setName: (n: string) => void; signedIn: string | null } {
  const [name, setState] = useState("");
  const [signedIn, setSignedIn] = useState<string | null>(null);
  useEffect(() => {
    setState(storedReviewer());
    let cancelled = false;
    void whoAmI().then((m) => {
      if (!cancelled && m?.accounts && m.user) setSignedIn(m.user.name);
    });
    return () => {
      cancelled = true;
    };
  }, []);
  // another tab (or another panel on the page) changed the name
  useEffect(() => {
    const onStorage = (e: StorageEvent) => e.key === REVIEWER_KEY && setState(e.newValue ?? "");
    const onLocal = (e: Event) => setState((e as CustomEvent<string>).detail);
    window.addEventListener("storage", onStorage);
    window.addEventListener(REVIEWER_KEY, onLocal);
    return () => {
      window.removeEventListener("storage", onStorage);
      window.removeEventListener(REVIEWER_KEY, onLocal);
    };
  }, []);
  const setName = (n: string) => {
    setState(n);
    remember(n);
    window.dispatchEvent(new CustomEvent(REVIEWER_KEY, { detail: n }));
  };
  return { name: signedIn ?? name, setName, signedIn };
}
