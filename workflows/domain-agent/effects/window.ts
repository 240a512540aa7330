// The days a question is about ("this week", "yesterday", "last 10 days" …) and the window
// before it that "worse" or "better" compares against.
import type { Window } from "../types";

export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

function span(to: string, days: number, label: string): Window {
  const from = addDays(to, -(days - 1));
  return { from, to, baselineFrom: addDays(from, -days), baselineTo: addDays(from, -1), label };
}

/**
 * The window a query names, relative to `today`; `widen` doubles it that many times (a re-plan
 * after too little data looks further back).
 */
export function windowFor(query: string, today: string, lookbackDays: number, widen = 0): Window {
  const q = query.toLowerCase();
  const scale = 2 ** widen;
  const n = q.match(/\b(?:last|past)\s+(\d{1,3})\s+(day|week|month)s?\b/);
  let w: Window;
  if (n) {
    const days = Number(n[1]) * (n[2] === "week" ? 7 : n[2] === "month" ? 30 : 1);
    w = span(today, Math.max(1, days) * scale, `the last ${days * scale} days`);
  } else if (/\blast week\b/.test(q)) {
    w = span(addDays(today, -7), 7 * scale, scale > 1 ? `the ${7 * scale} days before this week` : "last week");
  } else if (/\b(this|the past|past) week\b|\bweek\b/.test(q)) {
    w = span(today, 7 * scale, scale > 1 ? `the last ${7 * scale} days` : "this week");
  } else if (/\b(this|past|last) month\b|\bmonth\b/.test(q)) {
    w = span(today, 30 * scale, `the last ${30 * scale} days`);
  } else if (/\byesterday\b/.test(q) && scale === 1) {
    const y = addDays(today, -1);
    w = { from: y, to: y, baselineFrom: addDays(y, -7), baselineTo: addDays(y, -1), label: "yesterday" };
  } else if (/\b(today|last night|this morning|tonight)\b/.test(q) && scale === 1) {
    w = { from: today, to: today, baselineFrom: addDays(today, -7), baselineTo: addDays(today, -1), label: "today" };
  } else {
    const days = lookbackDays * scale;
    w = span(today, days, `the last ${days} days`);
  }
  return w;
}
