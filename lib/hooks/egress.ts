// Where outgoing webhooks may not go: link-local addresses (169.254.0.0/16, fe80::/10: the
// cloud metadata services that hand out instance credentials live there), "this network"
// (0.0.0.0/8, ::) and their IPv4-mapped IPv6 forms. Private networks and localhost stay
// allowed: a self-hosted Switchyard's receivers often live there. The check runs on every
// address a host name resolves to, at connect time (so a name that later resolves elsewhere —
// DNS rebinding — is caught too), and on literal addresses, which skip the resolver.
import dns from "node:dns";
import net from "node:net";
import { Agent, fetch as undiciFetch } from "undici";

/** An IPv6 address as its eight 16-bit groups (dotted IPv4 tails and "::" expanded); null when not IPv6. */
function groups6(address: string): number[] | null {
  if (!net.isIPv6(address)) return null;
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const fill = tail === undefined ? [] : Array.from({ length: 8 - h.length - t.length }, () => "0");
  return [...h, ...fill, ...t].map((g) => parseInt(g, 16));
}

const METADATA_V6 = groups6("fd00:ec2::254")!.join(":");

/** Why `address` may not be reached, or null when it may. */
export function blockedAddress(address: string): string | null {
  const g = groups6(address);
  // IPv4, or IPv4 mapped into IPv6 (::ffff:a.b.c.d)
  const v4 = net.isIPv4(address) ? address.split(".").map(Number) : g && g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff ? [g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255] : null;
  if (v4) {
    if (v4[0] === 169 && v4[1] === 254) return "a link-local address (cloud metadata services live there)";
    if (v4[0] === 0) return `an address of "this network" (0.0.0.0/8)`;
    return null;
  }
  if (!g) return null;
  if ((g[0]! & 0xffc0) === 0xfe80) return "a link-local address (fe80::/10)";
  if (g.join(":") === METADATA_V6) return "the cloud metadata service's IPv6 address (fd00:ec2::254)";
  if (g.every((x) => x === 0)) return "the unspecified address (::)";
  return null;
}

/** Why the URL's host may not be reached, judged on the URL alone (a literal address, a metadata name), or null. */
export function blockedUrl(url: string): string | null {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  } catch {
    return null;
  }
  if (host === "metadata.google.internal" || host === "metadata") return "a cloud metadata service";
  return net.isIP(host) ? blockedAddress(host) : null;
}

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
