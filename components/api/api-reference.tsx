"use client";
// The API reference: Swagger UI (swagger-ui-dist, bundled into this app's own chunks: no CDN, no
// web fonts) rendering /api/openapi.json. validatorUrl null: it never sends the document to
// validator.swagger.io. "Try it out" calls the API on this origin with the page's session.
//
// Made to pass axe-core like every page (e2e/accessibility.spec.ts): its colours darkened to 4.5:1
// (swagger-overrides.css), its code in the monokai theme (agate's numbers are 3.4:1), operation
// paths as text rather than a link inside the row's button (a control inside a control: deep links
// still work, the address follows the open operation), and what it leaves unnamed or out of reach
// of the keyboard fixed as it renders (fillGaps).
import "swagger-ui-dist/swagger-ui.css";
import "./swagger-overrides.css";
import { useEffect, useRef, useState } from "react";

type System = { React: { createElement: (type: unknown, props: Record<string, unknown>) => unknown } };

/** Swagger UI's DeepLink (the path in an operation's summary row) as plain text, not a nested link. */
const plainPaths = () => ({
  wrapComponents: { DeepLink: (Original: unknown, system: System) => (props: Record<string, unknown>) => system.React.createElement(Original, { ...props, enabled: false }) },
});

/** Code blocks that may scroll take focus (a keyboard scrolls them); unnamed parameter fields take their parameter's name. */
function fillGaps(root: HTMLElement) {
  for (const pre of root.querySelectorAll<HTMLElement>(".highlight-code pre:not([tabindex]), pre.microlight:not([tabindex])")) pre.tabIndex = 0;
  for (const el of root.querySelectorAll<HTMLElement>("tr[data-param-name] :is(select, input, textarea):not([aria-label])")) el.setAttribute("aria-label", el.closest("tr")!.dataset.paramName!);
  for (const el of root.querySelectorAll<HTMLElement>("textarea.body-param__text:not([aria-label])")) el.setAttribute("aria-label", "Request body");
}

export function ApiReference({ url }: { url: string }) {
  const root = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const node = root.current;
    let frame = 0;
    const gaps = new MutationObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => node && fillGaps(node));
    });
    if (node) gaps.observe(node, { childList: true, subtree: true });
    import("swagger-ui-dist/swagger-ui-es-bundle.js")
      .then(({ default: SwaggerUIBundle }) => {
        if (!live || !node) return;
        SwaggerUIBundle({
          domNode: node,
          url,
          validatorUrl: null,
          deepLinking: true,
          docExpansion: "list",
          defaultModelsExpandDepth: 0,
          filter: true,
          plugins: [plainPaths],
          syntaxHighlight: { activated: true, theme: "monokai" },
        });
      })
      .catch((e: unknown) => live && setFailed(e instanceof Error ? e.message : String(e)));
    return () => {
      live = false;
      gaps.disconnect();
      cancelAnimationFrame(frame);
    };
  }, [url]);
  return (
    <>
      {failed && (
        <p role="alert" className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-800">
          The reference could not load ({failed}); the document itself is at <a href={url}>{url}</a>.
        </p>
      )}
      {/* Swagger UI has light colours only: on a light panel in dark mode too */}
      <div ref={root} data-testid="api-reference" className="overflow-x-auto rounded-lg bg-white text-slate-900" />
    </>
  );
}
