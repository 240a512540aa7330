// Browsers still ask for /favicon.ico now and then, whatever the page's <link rel="icon"> says
// (app/icon.svg): answer with the same picture instead of a 404 in the console.
import fs from "node:fs";
import path from "node:path";

export const dynamic = "force-static";

export function GET() {
  const svg = fs.readFileSync(path.join(process.cwd(), "app", "icon.svg"));
  return new Response(svg, { headers: { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" } });
}
