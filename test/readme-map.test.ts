// README's "How it is built" names every folder of lib/, and nothing that is not there: the map
// a new engineer reads first cannot silently fall behind the code.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
const section = /^## How it is built\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme)?.[1] ?? "";
// the folders a bullet of the map is about: "- `lib/x/` — …" or "- `lib/x/`, `lib/y/` — …"
const mapped = new Set(
  section
    .split("\n")
    .filter((l) => l.startsWith("- "))
    .flatMap((l) => [...l.split(" — ")[0].matchAll(/`lib\/([a-z0-9-]+)\/`/g)].map((m) => m[1])),
);
const folders = fs
  .readdirSync(path.join(root, "lib"), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort();

describe("README's map of lib/", () => {
  it("has a 'How it is built' section with bullets", () => {
    expect(section).not.toBe("");
    expect(mapped.size).toBeGreaterThan(0);
  });

  it("gives every folder of lib/ a bullet of its own", () => {
    expect(folders.filter((f) => !mapped.has(f))).toEqual([]);
  });

  it("names no folder that lib/ does not have", () => {
    expect([...mapped].filter((f) => !folders.includes(f)).sort()).toEqual([]);
  });
});
