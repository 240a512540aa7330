import { handler, json } from "@/lib/api/http";
import { SESSION_COOKIE, cookieValue } from "@/lib/auth/accounts";
import { getRuntime } from "@/lib/runtime";

export const POST = handler(async (req: Request) => {
  const token = cookieValue(req.headers.get("cookie"), SESSION_COOKIE);
  if (token) await (await getRuntime()).accounts.signOut(token);
  return json({ ok: true }, 200, { "set-cookie": `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0` });
});
