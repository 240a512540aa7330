// Where outgoing webhooks may not go: link-local addresses (169.254.0.0/16, fe80::/10: the
// cloud metadata services that hand out instance credentials live there), "this network"
// (0.0.0.0/8, ::), AWS's IPv6 metadata address, and every IPv6 form that carries one of those
// IPv4 addresses inside it (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, SIIT
// ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32).
// Private networks and localhost stay allowed: a self-hosted Switchyard's receivers often live
// there. The check runs on every address a host name resolves to, at connect time (so a name
// that later resolves elsewhere — DNS rebinding — is caught too), and on literal addresses,
// which skip the resolver. Addresses are parsed by ipaddr.js, not by hand.
import dns from "node:dns";
import { Agent, fetch as undiciFetch } from "undici";
import { blockedAddress, blockedUrl } from "./egress-rules";

export { blockedAddress, blockedUrl };

/** The error a blocked host fails with (code EBLOCKED: the delivery is not retried). */
const refused = (subject: string, why: string) => Object.assign(new Error(`${subject}: webhooks may not reach ${why}`), { code: "EBLOCKED" });

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** dns.lookup that never answers with a blocked address (used for every connection a webhook makes). */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const allowed = addresses.filter((a) => blockedAddress(a.address) === null);
    if (allowed.length === 0) {
      const why = blockedAddress(addresses[0]?.address ?? "") ?? "no address";
      return callback(refused(`${hostname} resolves to ${addresses.map((a) => a.address).join(", ")}`, why), []);
    }
    if (options.all) callback(null, allowed);
    else callback(null, allowed[0]!.address, allowed[0]!.family);
  });
}

let agent: Agent | null = null;

/** fetch for webhook deliveries: refuses blocked hosts (literal or resolved), follows no redirects. */
export const egressFetch: typeof globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  const why = blockedUrl(url);
  if (why) throw refused(new URL(url).hostname, why);
  agent ??= new Agent({ connect: { lookup: guardedLookup as never } });
  return (await undiciFetch(url, { ...(init as object), dispatcher: agent } as never)) as unknown as Response;
}) as typeof globalThis.fetch;
