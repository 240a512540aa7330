import { handler } from "@/lib/api/http";
import { sseResponse } from "@/lib/api/sse";
import { getRuntime } from "@/lib/runtime";

export const dynamic = "force-dynamic";

/** Every run's changes (summaries only): the dashboard and the review queue listen here. */
export const GET = handler(async (req: Request) => sseResponse(await getRuntime(), "*", req.signal));
