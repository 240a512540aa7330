// The egress rules on their own: which addresses and URLs outgoing requests may not reach
// (see egress.ts for why). No Node.js networking here, so the workflow editor's validation can
// use the rules in the browser too; egress.ts applies them at connect time.
import ipaddr from "ipaddr.js";

const METADATA_V6 = ipaddr.IPv6.parse("fd00:ec2::254");
const METADATA_NAMES = new Set(["metadata.google.internal", "metadata"]);

/** Why an IPv4 address may not be reached, or null. */
function blocked4(v4: ipaddr.IPv4): string | null {
  const [a, b] = v4.octets;
  if (a === 169 && b === 254) return "a link-local address (cloud metadata services live there)";
  if (a === 0) return `an address of "this network" (0.0.0.0/8)`;
  return null;
}

const v4At = (bytes: number[], at: number) => new ipaddr.IPv4(bytes.slice(at, at + 4));

/** The IPv4 addresses an IPv6 address carries, by the range it is in (none for a plain IPv6 address). */
function embedded4(v6: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = v6.parts;
  const bytes = v6.toByteArray();
  const range = v6.range();
  const tail = v4At(bytes, 12);
  switch (range) {
    case "ipv4Mapped": // ::ffff:a.b.c.d
    case "rfc6145": // ::ffff:0:a.b.c.d
      return [tail];
    case "rfc6052": {
      // 64:ff9b::/96 carries it in the last 32 bits; the local-use 64:ff9b:1::/48 may use any RFC
      // 6052 prefix length from /48 to /96, each with the address at its own place (bits 64–71 skipped)
      if (p[2] === 0) return [tail];
      const at = (offsets: number[]) => new ipaddr.IPv4(offsets.map((o) => bytes[o]!));
      return [at([6, 7, 9, 10]), at([7, 9, 10, 11]), at([9, 10, 11, 12]), tail];
    }
    case "6to4": // 2002:AABB:CCDD::/48
      return [v4At(bytes, 2)];
    case "teredo": // 2001:0:server(32 bits):flags:port:client (32 bits, inverted)
      return [v4At(bytes, 4), new ipaddr.IPv4(bytes.slice(12, 16).map((b) => b ^ 0xff))];
    default:
      // IPv4-compatible ::a.b.c.d (deprecated, still routed by some stacks); :: and ::1 excepted
      return p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1) ? [tail] : [];
  }
}

/** Why `address` (IPv4 or IPv6, as resolved or as written in a URL) may not be reached, or null when it may. */
export function blockedAddress(address: string): string | null {
  const text = address.replace(/^\[|\]$/g, "");
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return blocked4(ipaddr.IPv4.parse(text));
  if (!ipaddr.IPv6.isValid(text)) return null;
  const v6 = ipaddr.IPv6.parse(text);
  if (v6.range() === "linkLocal") return "a link-local address (fe80::/10)";
  if (v6.range() === "unspecified") return "the unspecified address (::)";
  if (v6.toNormalizedString() === METADATA_V6.toNormalizedString()) return "the cloud metadata service's IPv6 address (fd00:ec2::254)";
  for (const v4 of embedded4(v6)) {
    const why = blocked4(v4);
    if (why) return `${why}, inside the IPv6 address ${v6.toString()} (${v4.toString()})`;
  }
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
  // "metadata.google.internal." (a fully qualified name) is the same host as without the dot
  if (METADATA_NAMES.has(host.replace(/\.+$/, ""))) return "a cloud metadata service";
  return blockedAddress(host);
}

