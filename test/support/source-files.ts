// The project's own source files (paths relative to the repository root, "/" separated), for
// tests that read the code itself: node_modules, build output and generated code left out.
import fs from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "../..");

/** Every top-level folder that holds the project's code (the docs are not code). */
export const CODE_DIRS = ["app", "bench", "clients", "components", "e2e", "lib", "prisma", "scripts", "test", "workflows"];

const SKIP = /(^|\/)(node_modules|dist|\.next|generated)(\/|$)/;

export function sourceFiles(dirs: string[] = CODE_DIRS, exts: string[] = [".ts", ".tsx", ".mts", ".mjs", ".js", ".py", ".sql", ".prisma"]): string[] {
  const out: string[] = [];
  for (const dir of dirs) {
    const abs = path.join(ROOT, dir);
    if (!fs.existsSync(abs)) continue;
    for (const f of fs.readdirSync(abs, { recursive: true, encoding: "utf8" })) {
      const rel = `${dir}/${f.split(path.sep).join("/")}`;
      if (SKIP.test(rel) || !exts.some((e) => rel.endsWith(e))) continue;
      if (fs.statSync(path.join(ROOT, rel)).isFile()) out.push(rel);
    }
  }
  return out.sort();
}

export function read(rel: string): string {
  return fs.readFileSync(path.join(ROOT, rel), "utf8");
}
