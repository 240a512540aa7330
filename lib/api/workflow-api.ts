// Serving the workflows' app-level endpoints (their entries' `api`, lib/machines/workflow-api.ts):
// one route file (app/api/[...name]/route.ts) hands every /api/<name> no other route file takes
// to workflowApiRoute, which finds the endpoint by name in the registry, checks the role the
// method declares, parses the query and the body with the method's own schemas (those the API
// description shows), and answers with the handler's result. No workflow serves the name: 404;
// the endpoint has no such method: 405.
import { apiOf } from "../machines/registry";
import { API_METHODS, successStatus, type ApiMethod, type ApiMethodName, type ApiPorts } from "../machines/workflow-api";
import { handler, HttpError, json, parse, query, readJson } from "./http";

/** the endpoint's name: the path after /api/ ("metrics/modes" for /api/metrics/modes) */
export const apiName = (req: Request) => new URL(req.url).pathname.replace(/^\/api\//, "").replace(/\/+$/, "");

function methodOf(req: Request, method: ApiMethodName): ApiMethod {
  const name = apiName(req);
  const found = apiOf(name);
  if (!found) throw new HttpError(`no endpoint /api/${name.slice(0, 200)}`, 404, "not_found");
  const m = found.endpoint[method];
  if (!m) {
    const allowed = API_METHODS.filter((x) => found.endpoint[x]);
    throw new HttpError(`/api/${name} does not take ${method} (it takes ${allowed.join(", ")})`, 405, "method_not_allowed", { allowed });
  }
  return m;
}

/** A route handler for one HTTP method of every workflow endpoint; `ports` is asked once the request is valid. */
export function workflowApiRoute(method: ApiMethodName, ports: () => Promise<ApiPorts>): (req: Request) => Promise<Response> {
  const serve = handler(
    async (req: Request) => {
      const m = methodOf(req, method);
      const q = m.query ? parse(m.query, query(req)) : undefined;
      const body = m.body ? parse(m.body, await readJson(req)) : undefined;
      const out = await m.handle({ query: q, body, req }, await ports());
      const status = successStatus(m);
      return status === 204 ? new Response(null, { status }) : json(out, status);
    },
    // a role the method declares; an unknown endpoint or method: the table's (it answers 404 / 405 after)
    { roleOf: (req) => apiOf(apiName(req))?.endpoint[method]?.role },
  );
  // called with the request alone: a trace names the span by the path, not by the catch-all
  return (req: Request) => serve(req);
}
