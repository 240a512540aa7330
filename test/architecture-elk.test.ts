// ELK (1.4 MB) reaches the browser only when a layout is made there: lib/graph/layout.ts loads it
// with a dynamic import on first use. A static import of elkjs in code a page bundles would make
// every page with a diagram fetch and run it (the server lays out what a page first draws).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
    .map((f) => `${dir}/${f.split(path.sep).join("/")}`)
    .filter((f) => /\.tsx?$/.test(f) && !f.includes("node_modules/"));
}

describe("ELK in the browser", () => {
  it("no code a page can bundle imports elkjs statically (types only)", () => {
    const files = ["app", "components", "lib", "workflows"].flatMap(sources);
    const staticImport = /^\s*import\s+(?!type\b)[^;]*from\s+["']elkjs(\/[^"']*)?["']/m;
    const found = files.filter((f) => staticImport.test(fs.readFileSync(path.join(root, f), "utf8")));
    expect(found).toEqual([]);
    // and the lazy load is there
    expect(fs.readFileSync(path.join(root, "lib/graph/layout.ts"), "utf8")).toMatch(/import\(["']elkjs\/lib\/elk\.bundled\.js["']\)/);
  });
});
