"use client";
// The first thing a keyboard reaches on every page: "Skip to main content", or, on a page that
// waits for a person's decision, "Skip to the decision", which focuses its first decision button.
import { useState } from "react";

/** the first decision button a person can press on this page, if any */
function firstDecision(): HTMLButtonElement | null {
  for (const b of document.querySelectorAll<HTMLButtonElement>("main [data-decision]")) {
    if (!b.disabled && b.offsetParent !== null) return b;
  }
  return null;
}

export function SkipLink() {
  const [decision, setDecision] = useState(false);
  return (
    <a
      href="#main"
      onFocus={() => setDecision(!!firstDecision())}
      onClick={(e) => {
        const b = firstDecision();
        if (!b) return;
        e.preventDefault();
        b.scrollIntoView({ block: "center" });
        b.focus();
      }}
      className="sr-only z-50 rounded-md bg-blue-700 px-3 py-2 text-sm font-medium text-white focus:not-sr-only focus:fixed focus:left-3 focus:top-3"
      data-testid="skip-link"
    >
      {decision ? "Skip to the decision" : "Skip to main content"}
    </a>
  );
}
