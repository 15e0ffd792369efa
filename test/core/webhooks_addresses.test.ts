import t from "tap";
import {
  addressBlockReason,
  addressInCidr,
  type Cidr,
  formatCidr,
  isForbiddenAddress,
  parseAllowedNetworks,
  parseCidr,
  parseIp,
} from "../../core/webhooks/mod.ts";

const cidr = (text: string): Cidr => {
  const c = parseCidr(text);
  if (!c) throw new Error(`test setup: ${text}`);
  return c;
};

t.test("parseIp", (t) => {
  const cases: [string, number[] | undefined][] = [
    ["192.0.2.1", [192, 0, 2, 1]],
    ["0.0.0.0", [0, 0, 0, 0]],
    ["255.255.255.255", [255, 255, 255, 255]],
    ["::1", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]],
    ["::", new Array(16).fill(0)],
    ["[::1]", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]],
    ["fe80::1%eth0", [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]],
    ["::ffff:127.0.0.1", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1]],
    ["::FFFF:7f00:1", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1]],
    ["2001:db8:0:0:0:0:0:1", [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]],
    ["1:2:3:4:5:6:7::", [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 0]],
    ["256.0.0.1", undefined],
    ["127.1", undefined],
    ["0177.0.0.1", undefined],
    ["01.2.3.4", undefined],
    ["1.2.3.4.5", undefined],
    ["2130706433", undefined],
    ["example.com", undefined],
    ["1::2::3", undefined],
    ["1:2:3:4:5:6:7:8:9", undefined],
    ["1:2:3:4:5:6:7::8", undefined],
    ["12345::1", undefined],
    ["::1.2.3", undefined],
    ["1.2.3.4::", undefined],
    ["", undefined],
  ];
  for (const [text, bytes] of cases) t.same(parseIp(text)?.bytes, bytes, JSON.stringify(text));
  t.end();
});

t.test("parseCidr and formatCidr", (t) => {
  const cases: [string, string | undefined][] = [
    ["10.0.0.0/8", "10.0.0.0/8"],
    ["10.1.2.3/8", "10.0.0.0/8"],
    ["127.0.0.1", "127.0.0.1/32"],
    [" 192.168.1.0/24 ", "192.168.1.0/24"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["fc00::/7", "fc00:0:0:0:0:0:0:0/7"],
    ["::1", "0:0:0:0:0:0:0:1/128"],
    ["10.0.0.0/33", undefined],
    ["::/129", undefined],
    ["10.0.0.0/", undefined],
    ["10.0.0.0/08", undefined],
    ["10.0.0.0/-1", undefined],
    ["10.0.0/8", undefined],
    ["example.com/8", undefined],
  ];
  for (const [text, formatted] of cases) {
    const c = parseCidr(text);
    t.equal(c === undefined ? undefined : formatCidr(c), formatted, JSON.stringify(text));
  }
  t.end();
});

t.test("addressInCidr", (t) => {
  const cases: [string, string, boolean][] = [
    ["10.255.0.1", "10.0.0.0/8", true],
    ["11.0.0.1", "10.0.0.0/8", false],
    ["172.31.255.255", "172.16.0.0/12", true],
    ["172.32.0.0", "172.16.0.0/12", false],
    ["127.0.0.1", "127.0.0.1/32", true],
    ["127.0.0.2", "127.0.0.1/32", false],
    ["::ffff:127.0.0.1", "127.0.0.1/32", true],
    ["::ffff:10.1.1.1", "10.0.0.0/8", true],
    ["::ffff:127.0.0.1", "::ffff:0:0/96", true],
    ["fd12::1", "fc00::/7", true],
    ["fe00::1", "fc00::/7", false],
    ["10.0.0.1", "::/0", false],
    ["::1", "0.0.0.0/0", false],
    ["1.2.3.4", "0.0.0.0/0", true],
    ["not an address", "0.0.0.0/0", false],
  ];
  for (const [addr, net, expected] of cases) t.equal(addressInCidr(addr, cidr(net)), expected, `${addr} in ${net}`);
  t.end();
});

t.test("forbidden destinations (no allowlist)", (t) => {
  const cases: [string, string | null][] = [
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.254", "private"],
    ["192.168.1.10", "private"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.169.254", "link_local"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "reserved"],
    ["100.64.0.1", "shared"],
    ["100.127.255.255", "shared"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.10", "reserved"],
    ["198.18.0.1", "reserved"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["fc00::1", "private"],
    ["fd00:abcd::1", "private"],
    ["fe80::1", "link_local"],
    ["fe80::1%en0", "link_local"],
    ["febf::1", "link_local"],
    ["ff02::1", "multicast"],
    ["2001:db8::1", "reserved"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "link_local"],
    ["::127.0.0.1", "reserved"],
    ["64:ff9b::127.0.0.1", "loopback"],
    ["2002:7f00:1::", "loopback"],
    ["2002:a00:1::1", "private"],
    ["localhost", "invalid"],
    ["127.1", "invalid"],
    ["", "invalid"],
    // public
    ["8.8.8.8", null],
    ["1.1.1.1", null],
    ["100.63.255.255", null],
    ["100.128.0.0", null],
    ["172.15.255.255", null],
    ["172.32.0.0", null],
    ["192.167.255.255", null],
    ["169.253.0.1", null],
    ["223.255.255.255", null],
    ["2606:4700:4700::1111", null],
    ["::ffff:8.8.8.8", null],
    ["64:ff9b::8.8.8.8", null],
    ["2002:808:808::1", null],
  ];
  for (const [addr, reason] of cases) {
    t.equal(addressBlockReason(addr), reason, `${addr}: ${reason ?? "allowed"}`);
    t.equal(isForbiddenAddress(addr), reason !== null);
  }
  t.end();
});

t.test("the allowlist lets listed networks through, and only those", (t) => {
  const { networks, errors } = parseAllowedNetworks("10.0.0.0/8, 127.0.0.1/32,, fd00::/8 ");
  t.same(errors, []);
  t.equal(networks.length, 3);
  const cases: [string, boolean][] = [
    ["10.1.2.3", false],
    ["127.0.0.1", false],
    ["::ffff:127.0.0.1", false],
    ["64:ff9b::127.0.0.1", false],
    ["fd00::5", false],
    ["127.0.0.2", true],
    ["::1", true],
    ["192.168.0.1", true],
    ["169.254.169.254", true],
    ["fc00::1", true],
    ["8.8.8.8", false],
  ];
  for (const [addr, forbidden] of cases)
    t.equal(isForbiddenAddress(addr, networks), forbidden, `${addr} with allowlist`);
  t.end();
});

t.test("parseAllowedNetworks reports every bad entry", (t) => {
  t.same(parseAllowedNetworks(undefined), { networks: [], errors: [] });
  t.same(parseAllowedNetworks(" "), { networks: [], errors: [] });
  const r = parseAllowedNetworks("10.0.0.0/8, 10.0.0.0/40, localhost, ::1");
  t.equal(r.networks.length, 2);
  t.same(r.errors, [
    { field: "WEBHOOK_ALLOWED_NETWORKS", message: '"10.0.0.0/40" is not an IP address or CIDR network' },
    { field: "WEBHOOK_ALLOWED_NETWORKS", message: '"localhost" is not an IP address or CIDR network' },
  ]);
  t.end();
});
