// References in the code point somewhere a reader can follow: a guide page, a file, a test. An
// issue number ("issue 34", "issue 33 §2") or a seed document ("seed 001") names a text that is
// not in the repository, so no comment or string in the code may cite one.
import { describe, expect, it } from "vitest";
import { read, sourceFiles } from "./support/source-files";

const CITES = /\bissues? #?\d+\b|\bseed[ -]?0\d\d\b/i;
const SELF = "test/architecture-references.test.ts";

export function citations(text: string): string[] {
  return text.split("\n").filter((line) => CITES.test(line));
}

describe("references in the code", () => {
  it("tells a citation from an ordinary number", () => {
    expect(citations("// Save-time warnings (issue 34): a definition…\n// see seed 001\nconst issues = 3;\n// Issue #12 fixed\n// 2 issues remain")).toEqual([
      "// Save-time warnings (issue 34): a definition…",
      "// see seed 001",
      "// Issue #12 fixed",
    ]);
  });

  it("no source file cites an issue number or a seed document", () => {
    const files = [...sourceFiles(undefined, [".ts", ".tsx", ".mts", ".mjs", ".js", ".py", ".sql", ".prisma", ".yaml", ".yml"]), ...sourceFiles(["examples"], [".yaml", ".yml", ".json", ".mmd"])];
    expect(files).toContain("lib/runtime.ts");
    const hits = files.filter((f) => f !== SELF).flatMap((f) => citations(read(f)).map((line) => `${f}: ${line.trim().slice(0, 120)}`));
    expect(hits).toEqual([]);
  });
});
