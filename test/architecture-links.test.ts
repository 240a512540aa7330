// The app's links go through components/ui/link.tsx (prefetch on intent): a page that imported
// next/link directly would again fetch the page behind every link it shows, on sight.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const WRAPPER = "components/ui/link.tsx";

function sources(dir: string): string[] {
  return fs
    .readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
    .map((f) => `${dir}/${f.split(path.sep).join("/")}`)
    .filter((f) => /\.tsx?$/.test(f) && !f.includes("node_modules/"));
}

describe("links", () => {
  it("only the app's Link wrapper imports next/link", () => {
    const files = ["app", "components", "workflows"].flatMap(sources);
    expect(files).toContain(WRAPPER);
    const direct = files.filter((f) => /from\s+["']next\/link["']/.test(fs.readFileSync(path.join(root, f), "utf8")));
    expect(direct).toEqual([WRAPPER]);
  });
});
