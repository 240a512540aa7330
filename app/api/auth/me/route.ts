import { handler, json, principalOf } from "@/lib/api/http";
import { authEnabled } from "@/lib/auth/roles";

export const dynamic = "force-dynamic";

export const GET = handler(async (req: Request) => {
  const who = principalOf(req);
  return json({ accounts: authEnabled(), user: who ? { name: who.name, role: who.role, via: who.via } : null });
});
