// The built-in workflows' app-level endpoints (each entry's `api`): every /api/<name> that no other
// route file here takes comes to this one, which serves it through the registry by name
// (lib/api/workflow-api.ts); it names no workflow.
import { workflowApiRoute } from "@/lib/api/workflow-api";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

const ports = async () => {
  const rt = await getRuntime();
  return { db: rt.db, clock: rt.clock };
};

export const GET = workflowApiRoute("GET", ports);
export const POST = workflowApiRoute("POST", ports);
export const PUT = workflowApiRoute("PUT", ports);
export const PATCH = workflowApiRoute("PATCH", ports);
export const DELETE = workflowApiRoute("DELETE", ports);
