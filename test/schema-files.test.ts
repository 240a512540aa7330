// The schema files Prisma reads are what scripts/schemas.mjs writes from the ones people edit
// (prisma/core.prisma and each workflow's workflows/<id>/schema.prisma), and the committed
// migrations build exactly that schema, on SQLite and on PostgreSQL: `npm run db:diff` finds
// nothing to write.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { schemaDrift } from "../lib/db/migrate";
import { pgReachable, scratchSchema } from "../lib/db/pg-scratch";
import { assembleSqliteSchema, CORE_SCHEMA, derivePostgresSchema, POSTGRES_MIGRATIONS, POSTGRES_SCHEMA, SQLITE_MIGRATIONS, SQLITE_SCHEMA, workflowSchemas } from "../scripts/schemas.mjs";
import { tempDbUrl } from "./helpers";
import { PG_URL } from "./support/databases";
import { read, ROOT } from "./support/source-files";

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
});
function tempRoot(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "sy-schemas-"));
  temps.push(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

describe("the schema files", () => {
  it("prisma/schema.prisma and prisma/postgres/schema.prisma are up to date (npm run db:generate writes them)", () => {
    const assembled = assembleSqliteSchema(ROOT);
    expect(read(SQLITE_SCHEMA) === assembled, `${SQLITE_SCHEMA} is out of date: run \`npm run db:generate\``).toBe(true);
    expect(read(POSTGRES_SCHEMA) === derivePostgresSchema(assembled), `${POSTGRES_SCHEMA} is out of date: run \`npm run db:generate\``).toBe(true);
    // every workflow's models are in it, after the core's
    for (const { file } of workflowSchemas(ROOT)) expect(assembled).toContain(read(file).trim());
    expect(assembled.indexOf("model Run {")).toBeLessThan(assembled.indexOf(`// ${workflowSchemas(ROOT)[0]!.file}`));
  });

  it("the up-to-date check can fail: an edit of a workflow's models changes the assembly; a workflow's file holds models only", () => {
    const core = read(CORE_SCHEMA);
    const root = tempRoot({ [CORE_SCHEMA]: core, "workflows/w1/schema.prisma": "model W1Row {\n  id String @id\n}\n", "workflows/w2/index.ts": "" });
    const before = assembleSqliteSchema(root);
    expect(workflowSchemas(root)).toEqual([{ id: "w1", file: "workflows/w1/schema.prisma" }]);
    expect(before).toContain("// workflows/w1/schema.prisma: the models of the w1 workflow alone\n");
    fs.writeFileSync(path.join(root, "workflows/w1/schema.prisma"), "model W1Row {\n  id  String @id\n  day String\n}\n");
    expect(assembleSqliteSchema(root)).not.toBe(before);
    fs.writeFileSync(path.join(root, "workflows/w1/schema.prisma"), 'datasource db {\n  provider = "sqlite"\n}\n');
    expect(() => assembleSqliteSchema(root)).toThrow(/holds models only/);
  });

  it("the committed SQLite migrations build exactly the schema (and a schema that differs shows)", async () => {
    expect(await schemaDrift({ url: tempDbUrl("drift"), migrationsDir: path.join(ROOT, SQLITE_MIGRATIONS), schemaPath: path.join(ROOT, SQLITE_SCHEMA) })).toBe("");
    // the same check on a schema without a workflow's first table: the diff names it
    const model = /^model (\w+) \{/m.exec(read(workflowSchemas(ROOT)[0]!.file))![1]!;
    const without = read(SQLITE_SCHEMA).replace(new RegExp(`^model ${model} \\{[\\s\\S]*?^\\}\\n`, "m"), "");
    expect(without).not.toContain(`model ${model} {`);
    const root = tempRoot({ "schema.prisma": without });
    const drift = await schemaDrift({ url: tempDbUrl("drift2"), migrationsDir: path.join(ROOT, SQLITE_MIGRATIONS), schemaPath: path.join(root, "schema.prisma") });
    expect(drift).toContain(`DROP TABLE "${model}"`);
  });

  it("the committed PostgreSQL migrations build exactly the schema", async (ctx) => {
    const why = await pgReachable(PG_URL);
    if (why) {
      console.log(`[schema-files] PostgreSQL skipped: not reachable at ${PG_URL} (${why})`);
      return ctx.skip();
    }
    const scratch = await scratchSchema(PG_URL, "sy_drift");
    try {
      const url = `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}schema=${scratch.schema}`;
      expect(await schemaDrift({ url, migrationsDir: path.join(ROOT, POSTGRES_MIGRATIONS), schemaPath: path.join(ROOT, POSTGRES_SCHEMA) })).toBe("");
    } finally {
      await scratch.drop();
    }
  });
});
