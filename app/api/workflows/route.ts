import { handler, json } from "@/lib/api/http";
import { workflowSummaries } from "@/lib/api/workflows";

export const GET = handler(async () => json({ workflows: workflowSummaries() }));
