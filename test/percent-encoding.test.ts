// Malformed percent-encoding in a path (`/api/runs/%c0%ae`: bytes that are not UTF-8) is a 400
// with a message on every route with a dynamic segment, never a 500. Next.js hands such a segment
// to the route undecoded, so each route handler is called here the way it would be.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateDatabase } from "../lib/db/migrations";
import { tempDbUrl } from "./helpers";

const url = tempDbUrl("percent");
const saved = process.env.DATABASE_URL;
process.env.DATABASE_URL = url;
type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? routeFiles(path.join(dir, e.name)) : e.name === "route.ts" ? [path.join(dir, e.name)] : []));
}

beforeAll(async () => {
  await migrateDatabase(url);
});
afterAll(async () => {
  const { getRuntime } = await import("../lib/runtime");
  await (await getRuntime()).close();
  process.env.DATABASE_URL = saved;
});

describe("malformed percent-encoding in the path", () => {
  it("every dynamic API route answers 400 with a message, for every method", async () => {
    const dynamic = routeFiles("app/api").filter((f) => f.includes("["));
    expect(dynamic.length).toBeGreaterThanOrEqual(10);
    let checked = 0;
    for (const file of dynamic) {
      const mod = (await import(`../${file}`)) as Record<string, unknown>;
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"].filter((m) => typeof mod[m] === "function")) {
        for (const bad of ["%c0%ae", "%E0%A4%A", "%ff", "%"]) {
          const params: Record<string, string | string[]> = {};
          const urlPath = `/${path.dirname(file).replace(/^app\//, "")}`
            .replace(/\[\.\.\.(\w+)\]/g, (_m, k) => ((params[k] = [bad]), bad))
            .replace(/\[(\w+)\]/g, (_m, k) => ((params[k] = bad), bad));
          const init: RequestInit = { method, headers: { host: "localhost:3000", "content-type": "application/json" } };
          if (method !== "GET") init.body = "{}";
          const res = await (mod[method] as Handler)(new Request(`http://localhost:3000${urlPath}`, init), { params: Promise.resolve(params) });
          expect(res.status, `${method} ${urlPath}`).toBe(400);
          const body = await res.json();
          expect(body, `${method} ${urlPath}`).toMatchObject({ code: "bad_path" });
          expect(body.error).toMatch(/malformed percent-encoding/);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it("well-formed encodings still reach the route (a 404 for an unknown run, not a 400)", async () => {
    const run = (await import("../app/api/runs/[id]/route")) as unknown as { GET: Handler };
    const res = await run.GET(new Request("http://localhost:3000/api/runs/no%2Dsuch-run"), { params: Promise.resolve({ id: "no-such-run" }) });
    expect(res.status).toBe(404);
  });
});
