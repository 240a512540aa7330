// Where webhooks may not go (lib/hooks/egress.ts): the metadata address in every spelling a URL
// or a resolver can give it — IPv4-embedding IPv6 forms included — and metadata names with a
// trailing dot; private networks, localhost and ordinary public addresses stay reachable.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { blockedAddress, blockedUrl, egressFetch } from "../lib/hooks/egress";

describe("webhook egress check", () => {
  it("refuses the metadata address in every IPv4-embedding IPv6 form", () => {
    const spellings = [
      "http://169.254.169.254/latest/meta-data/",
      "http://0251.0376.0251.0376/", // octal, normalised by the URL parser
      "http://2852039166/", // one number
      "http://169.254.169.254./", // trailing dot on an IPv4 literal
      "http://[::ffff:169.254.169.254]/", // IPv4-mapped
      "http://[::ffff:a9fe:a9fe]/",
      "http://[0:0:0:0:0:ffff:a9fe:a9fe]/",
      "http://[::169.254.169.254]/", // IPv4-compatible
      "http://[::a9fe:a9fe]/",
      "http://[::ffff:0:169.254.169.254]/", // SIIT (RFC 6145)
      "http://[64:ff9b::a9fe:a9fe]/", // NAT64 well-known prefix
      "http://[64:ff9b::169.254.169.254]/",
      "http://[64:ff9b:1:a9fe:a9:fe00::]/", // NAT64 local-use prefix, /48 layout
      "http://[64:ff9b:1:a9:fe00:a9fe::]/", // /56 layout
      "http://[64:ff9b:1::a9:fea9:fe00:0]/", // /64 layout
      "http://[64:ff9b:1::a9fe:a9fe]/", // /96 layout
      "http://[2002:a9fe:a9fe::]/", // 6to4
      "http://[2002:a9fe:a9fe:1:2:3:4:5]/",
      "http://[2001:0:a9fe:a9fe::1]/", // Teredo, server part
      "http://[2001:0:4136:e378:8000:63bf:5601:5601]/", // Teredo, client part (inverted bits of 169.254.169.254)
      "http://[fe80::1]/",
      "http://[fd00:ec2::254]/",
      "http://[fd00:ec2:0:0:0:0:0:254]/",
      "http://0.0.0.0/",
      "http://[::]/",
      "http://[::ffff:0.0.0.0]/",
      "http://[2002::]/", // 6to4 of 0.0.0.0
      "http://metadata.google.internal/",
      "http://metadata.google.internal./",
      "http://METADATA.google.internal../",
      "http://metadata/",
      "http://metadata./",
    ];
    for (const url of spellings) expect(blockedUrl(url), url).not.toBeNull();
  });

  it("names the embedded address in the reason", () => {
    expect(blockedUrl("http://[64:ff9b::a9fe:a9fe]/")).toMatch(/link-local.*64:ff9b::a9fe:a9fe \(169\.254\.169\.254\)/);
    expect(blockedUrl("http://[2002:a9fe:a9fe::]/")).toMatch(/\(169\.254\.169\.254\)/);
    expect(blockedUrl("http://metadata.google.internal./")).toBe("a cloud metadata service");
  });

  it("resolved addresses in those forms are refused at connect time too", () => {
    for (const a of ["::a9fe:a9fe", "64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::", "::ffff:169.254.1.1", "fe80::1%eth0", "169.254.0.1", "0.1.2.3"]) expect(blockedAddress(a), a).not.toBeNull();
  });

  it("private networks, localhost and public addresses stay reachable, in IPv6 forms too", () => {
    const allowed = [
      "http://127.0.0.1:8080/hook",
      "http://localhost/hook",
      "http://localhost./hook",
      "http://10.0.0.5/",
      "http://192.168.1.10/",
      "http://[::1]/",
      "http://[::ffff:10.0.0.1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[64:ff9b::8.8.8.8]/",
      "http://[2002:c000:0201::]/", // 6to4 of 192.0.2.1
      "http://[2001:db8::1]/", // documentation range, not Teredo
      "http://[2606:4700::1111]/",
      "http://[fd12::1]/",
      "https://hooks.example.com/x",
      "https://metadata.example.com/",
    ];
    for (const url of allowed) expect(blockedUrl(url), url).toBeNull();
  });

  it("egressFetch refuses a blocked literal before connecting", async () => {
    await expect(egressFetch("http://[64:ff9b::a9fe:a9fe]/x")).rejects.toMatchObject({ code: "EBLOCKED" });
    await expect(egressFetch("http://metadata.google.internal./computeMetadata/v1/")).rejects.toMatchObject({ code: "EBLOCKED" });
  });

  it("SECURITY.md and README say the same about which webhook URLs are allowed", () => {
    const security = fs.readFileSync("SECURITY.md", "utf8").replace(/\s+/g, " ");
    const readme = fs.readFileSync("README.md", "utf8").replace(/\s+/g, " ");
    expect(security).not.toMatch(/webhook URLs are not restricted/i);
    for (const doc of [security, readme]) {
      expect(doc).toMatch(/link-local (addresses|ones) \(169\.254\.0\.0\/16, fe80::\/10/);
      expect(doc).toMatch(/refused when (the webhook is )?added \(422\)/);
      expect(doc).toMatch(/checked again when connecting/);
      expect(doc).toMatch(/private networks stay reachable|Private networks and localhost stay reachable/i);
    }
  });
});
