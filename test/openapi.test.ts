// GET /api/openapi.json: the OpenAPI 3.1 document made from the routes' own zod schemas
// (lib/api/openapi/). It passes a real OpenAPI validator; it has exactly the route files under
// app/api and the methods each exports (no more, no fewer); each path's {parameters} are described;
// and real answers of a running server (test/support/app-server.ts), successes and errors, match the
// response schemas the document gives for their status.
import fs from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument } from "../lib/api/openapi/document";
import { allOperations } from "../lib/api/openapi/routes";
import { builtInApi } from "../lib/machines/registry";
import { saveUserWorkflow } from "../lib/flows/store";
import type { ManualClock } from "../lib/engine/clock";
import type { Runtime } from "../lib/runtime";
import { flush, workflowRuntime } from "./helpers";
import { serveApp, type AppServer } from "./support/app-server";

const ROOT = path.resolve(import.meta.dirname, "..");
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

type Doc = ReturnType<typeof openApiDocument>;
type Operation = { parameters?: { in: string; name: string; required?: boolean }[]; responses: Record<string, { content?: Record<string, { schema: unknown }> }>; security?: unknown[]; "x-switchyard-role"?: string | null };

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? routeFiles(path.join(dir, e.name)) : e.name === "route.ts" ? [path.join(dir, e.name)] : []));
}

/** app/api/runs/[id]/artifacts/[...path]/route.ts → /api/runs/{id}/artifacts/{path} */
const pathOf = (file: string) =>
  "/" +
  path
    .relative(path.join(ROOT, "app"), path.dirname(file))
    .split(path.sep)
    .map((s) => s.replace(/^\[\.\.\.(\w+)\]$/, "{$1}").replace(/^\[(\w+)\]$/, "{$1}"))
    .join("/");

const doc: Doc = openApiDocument();
const operations = () => Object.entries(doc.paths ?? {}).flatMap(([p, item]) => Object.entries(item as Record<string, Operation>).map(([m, op]) => ({ key: `${m.toUpperCase()} ${p}`, path: p, op })));

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document (a real validator says so)", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(doc.openapi).toMatch(/^3\.1\./);
  });

  it("the validator refuses a broken document (it can fail)", async () => {
    const broken = structuredClone(doc) as unknown as { paths: Record<string, Record<string, { parameters: { in?: string }[] }>> };
    delete broken.paths["/api/runs/{id}"]!.get!.parameters[0]!.in;
    expect((await new Validator().validate(broken as never)).valid).toBe(false);
  });

  it("has every route file under app/api with each method it exports, and nothing else", async () => {
    const files = routeFiles(path.join(ROOT, "app/api"));
    expect(files.length).toBeGreaterThan(40);
    const fromRoutes: string[] = [];
    const catchAll = path.join(ROOT, "app/api/[...name]/route.ts");
    expect(files).toContain(catchAll);
    for (const file of files) {
      const mod = (await import(file)) as Record<string, unknown>;
      const methods = Object.keys(mod).filter((k) => METHODS.includes(k) && typeof mod[k] === "function");
      expect(methods.length, file).toBeGreaterThan(0);
      // the catch-all serves the workflows' endpoints: each method each one declares, at /api/<name>
      if (file === catchAll) continue;
      for (const m of methods) fromRoutes.push(`${m} ${pathOf(file)}`);
    }
    const served = builtInApi().map((a) => `${a.method} /api/${a.name}`);
    expect(served).toEqual(expect.arrayContaining(["GET /api/entries", "GET /api/profile", "PUT /api/profile", "DELETE /api/profile", "GET /api/metrics/modes"]));
    fromRoutes.push(...served);
    const documented = operations().map((o) => o.key);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...fromRoutes].sort());
    expect(fromRoutes).toContain("GET /api/runs/{id}");
    expect(fromRoutes).toContain("POST /api/reviews/{id}/decision");
    expect(fromRoutes).toContain("POST /api/tasks/claim");
    expect(fromRoutes).toContain("GET /api/runs/{id}/artifacts/{path}");
  });

  it("describes each {parameter} of a path, required, and no path parameter the path lacks", () => {
    for (const { key, path: p, op } of operations()) {
      const inPath = [...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      const described = (op.parameters ?? []).filter((x) => x.in === "path");
      expect(described.map((x) => x.name).sort(), key).toEqual(inPath);
      for (const x of described) expect(x.required, `${key} ${x.name}`).toBe(true);
    }
  });

  it("gives every operation a unique operationId, its role, sign-in and error answers; the three repeatable POSTs take Idempotency-Key", () => {
    const ids = allOperations().map((o) => o.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Object.keys(doc.components?.securitySchemes ?? {}).sort()).toEqual(["bearerToken", "sessionCookie"]);
    for (const { key, op } of operations()) {
      expect(op.security, key).toBeDefined();
      expect(op.responses["400"]?.content?.["application/json"]?.schema, key).toEqual({ $ref: "#/components/schemas/Error" });
    }
    const idempotent = operations()
      .filter(({ op }) => (op.parameters ?? []).some((x) => x.in === "header" && x.name === "idempotency-key"))
      .map((o) => o.key)
      .sort();
    expect(idempotent).toEqual(["POST /api/reviews/{id}/decision", "POST /api/runs", "POST /api/runs/{id}/events"]);
    const role = (key: string) => operations().find((o) => o.key === key)!.op["x-switchyard-role"];
    expect(role("POST /api/runs")).toBe("operator");
    expect(role("POST /api/reviews/{id}/decision")).toBe("reviewer");
    expect(role("POST /api/tasks/claim")).toBe("worker");
    expect(role("GET /api/health")).toBeNull();
    expect(role("DELETE /api/workflows/{id}")).toBe("admin");
  });

  it("uses the routes' own schemas: a constraint of StartRunBody and of RunListQuery shows in the document", () => {
    const post = operations().find((o) => o.key === "POST /api/runs")!.op as unknown as { requestBody: { content: { "application/json": { schema: { properties: Record<string, unknown>; additionalProperties: boolean; required: string[] } } } } };
    const body = post.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(["workflow"]);
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.workflow).toMatchObject({ type: "string", maxLength: 100 });
    const list = operations().find((o) => o.key === "GET /api/runs")!.op;
    expect((list.parameters ?? []).map((x) => x.name)).toEqual(expect.arrayContaining(["status", "workflow", "q", "scheduleId", "replayOf", "limit", "offset"]));
  });
});

const REVIEW_FLOW = `id: openapi-review
initial_stage: REVIEW
stages: [REVIEW, DONE, REDO]
transitions: { REVIEW: [DONE, REDO], DONE: [], REDO: [] }
steps:
  REVIEW:
    review: { prompt: "Ship {{input.text}}?", show: "{{input.text}}", decisions: [approve, reject] }
    on: { approve: DONE, reject: REDO }
`;
const EXTERNAL_FLOW = `id: openapi-external
initial_stage: NOTIFY
stages: [NOTIFY, DONE, FAILED]
transitions: { NOTIFY: [DONE, FAILED], DONE: [], FAILED: [] }
steps:
  NOTIFY:
    external: { queue: openapi-q }
    next: DONE
    on_error: FAILED
`;

describe("real answers match the document's response schemas", () => {
  let rt: Runtime & { clock: ManualClock };
  let server: AppServer;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: "doc", components: structuredClone(doc.components) } as object);
  const checked: string[] = [];

  /** call the API and check the answer's body against the document's schema for its method, path and status */
  async function call(method: string, template: string, actual: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${server.url}${actual}`, { method, headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    const op = (doc.paths as Record<string, Record<string, Operation>>)[template]?.[method.toLowerCase()];
    expect(op, `${method} ${template} is documented`).toBeDefined();
    const response = op!.responses[String(res.status)];
    expect(response, `${method} ${actual} answered ${res.status}, which the document does not list`).toBeDefined();
    const text = await res.text();
    const schema = response!.content?.["application/json"]?.schema;
    if (schema) {
      const validate = ajv.compile(rebase(schema));
      const value = JSON.parse(text);
      expect(validate(value) ? [] : validate.errors, `${method} ${actual} ${res.status}: ${text.slice(0, 300)}`).toEqual([]);
    } else expect(response!.content === undefined ? text : "", `${method} ${actual} ${res.status} has no body`).toBe("");
    checked.push(`${method} ${template} ${res.status}`);
    return { status: res.status, json: () => JSON.parse(text) };
  }

  /** refs of a response schema point into the document, added to ajv under "doc" */
  function rebase(schema: unknown): object {
    const json = JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/');
    const out = JSON.parse(json) as Record<string, unknown>;
    return { allOf: [out] };
  }

  beforeAll(async () => {
    rt = await workflowRuntime("conversation", { seedGuide: false });
    await saveUserWorkflow(rt.db, "yaml", REVIEW_FLOW);
    await saveUserWorkflow(rt.db, "yaml", EXTERNAL_FLOW);
    server = await serveApp(rt);
  });
  afterAll(async () => {
    await server?.close();
    await rt?.close();
  });

  it("runs, reviews, tasks, workflows, schedules, webhooks, alerts and the errors between", async () => {
    const run = (await call("POST", "/api/runs", "/api/runs", { workflow: "openapi-review", input: { text: "v1" } }, { "idempotency-key": "openapi-1" })).json() as { id: string };
    await call("POST", "/api/runs", "/api/runs", { workflow: "openapi-review", input: { text: "v1" } }, { "idempotency-key": "openapi-1" });
    await call("POST", "/api/runs", "/api/runs", { workflow: "openapi-review", input: { text: "v2" } }, { "idempotency-key": "openapi-1" }); // 422 reused
    await call("POST", "/api/runs", "/api/runs", { workflow: "openapi-review", extra: 1 }); // 422 with issues
    await flush();
    await call("GET", "/api/runs", "/api/runs?workflow=openapi-review&limit=5");
    await call("GET", "/api/runs/{id}", `/api/runs/${run.id}`);
    await call("GET", "/api/runs/{id}", "/api/runs/no-such-run"); // 404
    await call("GET", "/api/runs/{id}/transitions", `/api/runs/${run.id}/transitions?payload=1`);
    await call("GET", "/api/runs/{id}/snapshots", `/api/runs/${run.id}/snapshots?seq=1`);
    await call("GET", "/api/runs/{id}/artifacts", `/api/runs/${run.id}/artifacts`);
    await call("GET", "/api/runs/{id}/usage", `/api/runs/${run.id}/usage`);
    await call("GET", "/api/runs/{id}/export", `/api/runs/${run.id}/export`);
    const [review] = (await call("GET", "/api/reviews", `/api/reviews?runId=${run.id}&status=pending`)).json() as { id: string }[];
    await call("GET", "/api/reviews/{id}", `/api/reviews/${review!.id}`);
    await call("POST", "/api/reviews/{id}/decision", `/api/reviews/${review!.id}/decision`, { decision: "approve", reviewer: "ana" });
    await call("POST", "/api/reviews/{id}/decision", `/api/reviews/${review!.id}/decision`, { decision: "approve", reviewer: "ana" }); // 409

    const other = (await call("POST", "/api/runs", "/api/runs", { workflow: "openapi-review", input: { text: "v3" } })).json() as { id: string };
    await call("POST", "/api/runs/{id}/events", `/api/runs/${other.id}/events`, { type: "NO_SUCH_EVENT" }); // 409 / 422
    await call("POST", "/api/runs/{id}/abort", `/api/runs/${other.id}/abort`, { reason: "enough" });
    await call("GET", "/api/runs/{id}/compare/{other}", `/api/runs/${run.id}/compare/${other.id}`);

    const ext = (await call("POST", "/api/runs", "/api/runs", { workflow: "openapi-external", input: {} })).json() as { id: string };
    await flush();
    await call("POST", "/api/tasks/claim", "/api/tasks/claim", { queue: "empty-q", worker: "w1" }); // 204
    const task = (await call("POST", "/api/tasks/claim", "/api/tasks/claim", { queue: "openapi-q", worker: "w1" })).json() as { id: string; leaseToken: string };
    await call("POST", "/api/tasks/{id}/heartbeat", `/api/tasks/${task.id}/heartbeat`, { leaseToken: task.leaseToken });
    await call("POST", "/api/tasks/{id}/complete", `/api/tasks/${task.id}/complete`, { output: { sent: true }, leaseToken: "wrong" }); // 409
    await call("POST", "/api/tasks/{id}/complete", `/api/tasks/${task.id}/complete`, { output: { sent: true }, leaseToken: task.leaseToken });
    await call("GET", "/api/runs/{id}", `/api/runs/${ext.id}`);

    await call("GET", "/api/workflows", "/api/workflows");
    await call("GET", "/api/workflows/{id}", "/api/workflows/openapi-review");
    await call("PATCH", "/api/workflows/{id}", "/api/workflows/openapi-external", { disabled: false });
    await call("POST", "/api/workflows", "/api/workflows", { yaml: REVIEW_FLOW });
    await call("POST", "/api/workflows", "/api/workflows?dryRun=true", { yaml: REVIEW_FLOW });
    await call("POST", "/api/workflows", "/api/workflows?dryRun=true", { yaml: "id: broken\nstages: [A]\n" });

    const schedule = (await call("POST", "/api/schedules", "/api/schedules", { workflow: "openapi-review", cron: "0 9 * * *", input: { text: "daily" }, overlap: "skip", catchup: "none" })).json() as { schedule: { id: string } };
    await call("GET", "/api/schedules", "/api/schedules");
    await call("PATCH", "/api/schedules/{id}", `/api/schedules/${schedule.schedule.id}`, { paused: true });
    await call("POST", "/api/schedules/{id}/trigger", `/api/schedules/${schedule.schedule.id}/trigger`);
    await call("GET", "/api/schedules/{id}", `/api/schedules/${schedule.schedule.id}`);
    await call("DELETE", "/api/schedules/{id}", `/api/schedules/${schedule.schedule.id}`);

    const hook = (await call("POST", "/api/webhooks", "/api/webhooks", { workflow: "*", url: "http://127.0.0.1:9/hook", secret: "s".repeat(20), events: ["on_transition"] })).json() as { webhook: { id: string } };
    await call("GET", "/api/webhooks", "/api/webhooks");
    await call("GET", "/api/webhooks/{id}/deliveries", `/api/webhooks/${hook.webhook.id}/deliveries`);
    await call("DELETE", "/api/webhooks/{id}", `/api/webhooks/${hook.webhook.id}`);
    await call("POST", "/api/alerts/rules", "/api/alerts/rules", { workflow: "openapi-review", state: "REVIEW", metric: "waiting", threshold: 60_000 });
    await call("GET", "/api/alerts/rules", "/api/alerts/rules");
    await call("GET", "/api/alerts", "/api/alerts?status=open");

    await call("GET", "/api/health", "/api/health");
    await call("GET", "/api/auth/me", "/api/auth/me");
    await call("GET", "/api/openapi.json", "/api/openapi.json");
    await call("GET", "/api/runs", "/api/runs?nope=1"); // 422 unknown parameter

    expect(checked.filter((c) => / (4\d\d)$/.test(c)).length).toBeGreaterThanOrEqual(6);
    expect(new Set(checked.map((c) => c.split(" ").slice(0, 2).join(" "))).size).toBeGreaterThanOrEqual(35);
  });

  it("a schema check can fail: a run answer without its id does not match", () => {
    const op = (doc.paths as Record<string, Record<string, Operation>>)["/api/runs/{id}"]!.get!;
    const validate = ajv.compile(rebase(op.responses["200"]!.content!["application/json"]!.schema));
    expect(validate({ workflow: "x", status: "running" })).toBe(false);
  });
});
