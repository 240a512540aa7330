"use client";
// What the person looking at a page may do, for controls that should not be offered to a role
// that cannot use them (the server refuses those anyway: lib/auth/roles.ts). With accounts off
// everyone may do everything.
import { createContext, useContext, type ReactNode } from "react";
import { atLeast, type Role, type TokenRole } from "@/lib/auth/roles";

interface Who {
  /** null: accounts off */
  role: TokenRole | null;
}

const RoleContext = createContext<Who>({ role: null });

export function RoleProvider({ role, children }: { role: TokenRole | null; children: ReactNode }) {
  return <RoleContext.Provider value={{ role }}>{children}</RoleContext.Provider>;
}

const WHAT: Record<Role, string> = {
  viewer: "read",
  reviewer: "decide reviews",
  operator: "start, steer and stop runs",
  admin: "change workflows and settings",
};

const A: Record<Role, string> = { viewer: "a viewer", reviewer: "a reviewer", operator: "an operator", admin: "an admin" };

/** `may(need)`: whether the person has `need`; `why(need)`: the reason a control is not offered. */
export function useRole() {
  const { role } = useContext(RoleContext);
  return {
    role,
    may: (need: Role) => role === null || atLeast(role, need),
    why: (need: Role) => `Your role (${role}) cannot ${WHAT[need]}: that needs ${A[need]}${need === "admin" ? "" : " or above"}.`,
  };
}

/** The reason in place of a control the role cannot use. */
export function NotAllowed({ need, className = "" }: { need: Role; className?: string }) {
  const { why } = useRole();
  return (
    <p className={`text-xs text-slate-600 dark:text-slate-300 ${className}`} data-testid="not-allowed" data-need={need}>
      {why(need)}
    </p>
  );
}

/** `children` for a role that has `need`; the reason otherwise (`quiet`: nothing at all). */
export function Allowed({ need, quiet = false, children }: { need: Role; quiet?: boolean; children: ReactNode }) {
  const { may } = useRole();
  if (may(need)) return <>{children}</>;
  return quiet ? null : <NotAllowed need={need} />;
}
