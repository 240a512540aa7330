// A value against another, as a diff (the `diff` library): text word by word, anything else as
// canonical JSON (keys sorted) line by line. Removed parts struck through on red, added on green.
import { diffJson, diffLines, diffWords, type ChangeObject } from "diff";

const text = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v, null, 2) ?? "null");

function Parts({ parts, lines }: { parts: ChangeObject<string>[]; lines?: boolean }) {
  return (
    <>
      {parts.map((p, i) =>
        p.added ? (
          <ins key={i} className="bg-emerald-100 text-emerald-900 no-underline dark:bg-emerald-900/60 dark:text-emerald-100" data-diff="added">
            {lines ? p.value.replace(/^/gm, "+ ").replace(/\+ $/, "") : p.value}
          </ins>
        ) : p.removed ? (
          <del key={i} className="bg-red-100 text-red-900 dark:bg-red-900/60 dark:text-red-100" data-diff="removed">
            {lines ? p.value.replace(/^/gm, "- ").replace(/- $/, "") : p.value}
          </del>
        ) : (
          <span key={i}>{lines ? p.value.replace(/^/gm, "  ").replace(/ {2}$/, "") : p.value}</span>
        ),
      )}
    </>
  );
}

/** `a` → `b`; either may be absent (undefined): the other is shown whole. */
export function ValueDiff({ a, b, label }: { a: unknown; b: unknown; label: string }) {
  const box = "max-h-80 overflow-auto whitespace-pre-wrap break-words rounded-md border border-slate-200 bg-slate-50 p-2 font-mono text-[12px] leading-5 dark:border-slate-700 dark:bg-slate-950";
  if (a === undefined && b === undefined) return null;
  return (
    <div className="min-w-0">
      <div className="mb-1 text-xs font-medium text-slate-600 dark:text-slate-300">{label}</div>
      {a === undefined || b === undefined ? (
        <pre tabIndex={0} className={box}>{text(a === undefined ? b : a)}</pre>
      ) : typeof a === "string" && typeof b === "string" ? (
        <pre tabIndex={0} className={box} data-testid="text-diff">
          <Parts parts={diffWords(a, b)} />
        </pre>
      ) : (
        <pre tabIndex={0} className={box} data-testid="json-diff">
          <Parts parts={a !== null && b !== null && typeof a === "object" && typeof b === "object" ? diffJson(a, b) : diffLines(text(a), text(b))} lines />
        </pre>
      )}
    </div>
  );
}
