import { HttpError, handler, json, parse, readJson } from "@/lib/api/http";
import { LoginBody } from "@/lib/api/schemas";
import { SESSION_COOKIE } from "@/lib/auth/accounts";
import { authEnabled } from "@/lib/auth/roles";
import { getRuntime } from "@/lib/runtime";

export const POST = handler(async (req: Request) => {
  if (!authEnabled()) throw new HttpError("accounts are off (SWITCHYARD_AUTH is not on): there is nothing to sign in to", 404, "accounts_off");
  const { name, password } = parse(LoginBody, await readJson(req));
  const out = await (await getRuntime()).accounts.signIn(name, password);
  if (!out) throw new HttpError("wrong name or password", 401, "unauthenticated");
  const secure = new URL(req.url).protocol === "https:" ? "; Secure" : "";
  return json({ name: out.principal.name, role: out.principal.role }, 200, {
    "set-cookie": `${SESSION_COOKIE}=${out.token}; Path=/; HttpOnly; SameSite=Lax; Expires=${out.expiresAt.toUTCString()}${secure}`,
  });
});
