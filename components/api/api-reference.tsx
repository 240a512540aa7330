"use client";
// The API reference: Swagger UI (swagger-ui-dist, bundled into this app's own chunks: no CDN, no
// web fonts) rendering /api/openapi.json. validatorUrl null: it never sends the document to
// validator.swagger.io. "Try it out" calls the API on this origin with the page's session.
import "swagger-ui-dist/swagger-ui.css";
import { useEffect, useRef, useState } from "react";

export function ApiReference({ url }: { url: string }) {
  const root = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    import("swagger-ui-dist/swagger-ui-es-bundle.js")
      .then(({ default: SwaggerUIBundle }) => {
        if (!live || !root.current) return;
        SwaggerUIBundle({ domNode: root.current, url, validatorUrl: null, deepLinking: true, docExpansion: "list", defaultModelsExpandDepth: 0, filter: true });
      })
      .catch((e: unknown) => live && setFailed(e instanceof Error ? e.message : String(e)));
    return () => {
      live = false;
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
