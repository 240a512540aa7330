import ReactMarkdown, { type Components } from "react-markdown";

// Markdown from outputs (a model's answer, a worker's result) may hold images: a remote one would
// be fetched by every viewer's browser (and preloaded by the server render), a beacon anyone could
// plant. Only same-origin images are shown; any other is a link to it. The CSP's img-src (next.config.ts)
// says the same to the browser.
const HERE = "http://switchyard.invalid";

/** Does `src` point at this site (a path such as /api/…)? Resolved as a browser would: "//host", "/\host" and any scheme are elsewhere. */
export function sameOriginImage(src: unknown): src is string {
  if (typeof src !== "string" || src === "") return false;
  try {
    return new URL(src, `${HERE}/x/`).origin === HERE;
  } catch {
    return false;
  }
}

const components: Components = {
  img: ({ src, alt, title }) => {
    if (sameOriginImage(src)) return <img src={src} alt={alt ?? ""} title={title} loading="lazy" decoding="async" />;
    const label = `image: ${alt || (typeof src === "string" ? src : "")}`;
    if (typeof src !== "string" || src === "") return <span className="md-image-link">{label}</span>;
    return (
      <a className="md-image-link" href={src} title={title ?? src} target="_blank" rel="noopener noreferrer nofollow">
        {label}
      </a>
    );
  },
};

export function Markdown({ text, className }: { text: string; className?: string }) {
  return (
    <div className={`md ${className ?? ""}`}>
      <ReactMarkdown components={components}>{text}</ReactMarkdown>
    </div>
  );
}
