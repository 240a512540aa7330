// Markdown in outputs: a remote image would be fetched by every viewer's
// browser, and React's server render even preloads it (<link rel="preload" as="image">): a beacon
// a model or a worker can plant. Only same-origin images are rendered; the others are links. The
// CSP that says the same to browsers, and the framing refusal (item 10), are on every response.
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown, sameOriginImage } from "../components/ui/markdown";
import config, { API_REFERENCE_CSP, SECURITY_HEADERS } from "../next.config";

const render = (text: string) => renderToString(createElement(Markdown, { text }));

describe("images in Markdown outputs", () => {
  it("a remote image is a link, never an <img> or a preload; a same-origin one is an image", () => {
    const html = render("Look: ![chart](https://tracker.example/pixel.png?run=1) and ![ours](/api/runs/r1/artifacts/chart.png)");
    expect(html).not.toMatch(/<img[^>]*tracker\.example/);
    expect(html).not.toMatch(/<link[^>]*preload[^>]*tracker\.example/);
    expect(html).toMatch(/<a class="md-image-link" href="https:\/\/tracker\.example\/pixel\.png\?run=1"[^>]*rel="noopener noreferrer nofollow"[^>]*>image: chart<\/a>/);
    expect(html).toMatch(/<img src="\/api\/runs\/r1\/artifacts\/chart\.png" alt="ours" loading="lazy"/);
  });

  it("what a browser would resolve elsewhere is elsewhere: //host, /\\host, other schemes", () => {
    for (const src of ["//tracker.example/p.png", "/\\tracker.example/p.png", "http://tracker.example/p.png", "HTTPS://tracker.example/p.png", "data:image/png;base64,AAAA", "javascript:alert(1)", "", " //tracker.example/p.png"]) {
      expect(sameOriginImage(src), src).toBe(false);
    }
    for (const src of ["/api/x.png", "chart.png", "./chart.png", "../x/chart.png", "/x/%2F%2Fevil.png"]) expect(sameOriginImage(src), src).toBe(true);
    for (const src of ["//tracker.example/p.png", "HTTPS://tracker.example/p.png", "<//tracker.example/p.png>"]) {
      const html = render(`![x](${src})`);
      expect(html, src).not.toContain("<img");
      expect(html, src).not.toContain("preload");
    }
    // Markdown percent-encodes a backslash: what is rendered is a path here (/%5Ctracker…), which browsers do not read as //
    for (const src of [...render("![x](/\\tracker.example/p.png) ![y](/\\/tracker.example/p.png)").matchAll(/<img src="([^"]*)"/g)].map((m) => m[1]!)) {
      expect(src).not.toMatch(/^\/\/|\\/);
      expect(sameOriginImage(src), src).toBe(true);
    }
    // a scheme react-markdown refuses leaves no link at all
    expect(render("![x](javascript:alert(1))")).not.toContain("href");
  });

  it("every response says: no framing, images only from here", async () => {
    const rules = await config.headers!();
    // every page; the API reference page only widens connect-src and font-src to its own origin
    expect(rules).toEqual([
      { source: "/:path*", headers: SECURITY_HEADERS },
      { source: "/api-reference", headers: [{ key: "Content-Security-Policy", value: API_REFERENCE_CSP }] },
    ]);
    expect(API_REFERENCE_CSP).toContain("frame-ancestors 'none'");
    expect(API_REFERENCE_CSP).toMatch(/img-src 'self'( data:)?( blob:)?(;|$)/);
    const h = Object.fromEntries(SECURITY_HEADERS.map((x) => [x.key, x.value]));
    expect(h["X-Frame-Options"]).toBe("DENY");
    expect(h["Content-Security-Policy"]).toContain("frame-ancestors 'none'");
    expect(h["Content-Security-Policy"]).toMatch(/img-src 'self'( data:)?( blob:)?(;|$)/);
  });
});
