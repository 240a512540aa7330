// Who a request counts as for per-principal limits (the sandbox queue): the signed-in
// user or the API token; with accounts off, the client's address. `npm start` (scripts/path-guard.mjs)
// stamps each request with the address its connection came from, in CLIENT_ADDRESS_HEADER, replacing
// whatever a client sent under that name. Behind a reverse proxy declared with SWITCHYARD_TRUST_PROXY,
// every connection comes from the proxy: the address is the last X-Forwarded-For entry (the one the
// proxy added). Without the stamp (`next dev`), Next.js's own X-Forwarded-For is used.
import { principalKey, type Principal } from "../auth/accounts";
import { trustProxy } from "./csrf";

export const CLIENT_ADDRESS_HEADER = "x-switchyard-client-address";

const lastForwarded = (v: string | null) => v?.split(",").map((s) => s.trim()).filter(Boolean).at(-1) ?? null;

/** The client's address as the server saw it ("unknown" when nothing says). */
export function clientAddress(headers: Headers, env: Record<string, string | undefined> = process.env): string {
  const stamped = headers.get(CLIENT_ADDRESS_HEADER)?.trim() || null;
  const forwarded = lastForwarded(headers.get("x-forwarded-for"));
  const addr = (trustProxy(env) ? (forwarded ?? stamped) : (stamped ?? forwarded)) ?? "unknown";
  // an IPv4 client on a dual-stack socket reads ::ffff:1.2.3.4
  return addr.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "").slice(0, 100);
}

/** "user:<id>", "token:<id>", or with accounts off "addr:<client address>". */
export function principalKeyOf(who: Principal | null, headers: Headers): string {
  return who ? principalKey(who) : `addr:${clientAddress(headers)}`;
}
