import t from "tap";
import { isCoreError } from "../../core/errors/mod.ts";
import {
  assertWebhookUrl,
  destinationKey,
  isForbiddenAddress,
  parseAllowedNetworks,
  parseWebhookUrl,
  validateWebhookUrl,
} from "../../core/webhooks/mod.ts";

t.test("validateWebhookUrl", (t) => {
  const cases: [string, string | null][] = [
    ["https://example.com/webhooks", null],
    ["https://example.com", null],
    ["HTTPS://Example.COM:8443/a/b?x=1&y=%20", null],
    ["https://hooks.example.com./in", null],
    ["https://my_host.example.com/", null],
    ["https://8.8.8.8/hook", null],
    ["https://[2606:4700:4700::1111]:443/hook", null],
    ["http://example.com/webhooks", "must use https"],
    ["ftp://example.com/", "must use https"],
    ["", "is required"],
    [`https://example.com/${"a".repeat(2048)}`, "must be at most 2048 characters"],
    ["https://user:pass@example.com/", "must not contain credentials"],
    ["https://user@example.com/", "must not contain credentials"],
    ["https://example.com/a#frag", "must not contain a fragment (#...)"],
    ["https://example.com/#", "must not contain a fragment (#...)"],
    ["https://exa mple.com/", "must not contain spaces, control or non-ASCII characters"],
    [" https://example.com/", "must not contain spaces, control or non-ASCII characters"],
    ["https://bücher.example/", "must not contain spaces, control or non-ASCII characters"],
    ["https://example.com/\n", "must not contain spaces, control or non-ASCII characters"],
    ["example.com/webhooks", "must be an absolute URL such as https://example.com/webhooks"],
    ["https:example.com", "must be an absolute URL such as https://example.com/webhooks"],
    ["https:///path", "must name a host"],
    ["https://:443/", "must name a host"],
    ["https://example.com:0/", "has an invalid port"],
    ["https://example.com:65536/", "has an invalid port"],
    ["https://example.com:abc/", "has an invalid port"],
    ["https://ex%41mple.com/", "has an invalid host name"],
    ["https://-bad.example.com/", "has an invalid host name"],
    ["https://a..b/", "has an invalid host name"],
    ["https://2130706433/", "has an invalid host name"],
    ["https://0x7f.1/", "has an invalid host name"],
    ["https://127.1/", "has an invalid host name"],
    ["https://010.0.0.1/", "has an invalid host name"],
    ["https://[::1/", "has an invalid host name"],
    ["https://[127.0.0.1]/", "has an invalid IPv6 host"],
    ["https://[fe80::1%25eth0]/", "has an invalid IPv6 host"],
    ["https://example.com\\@evil.com/", "must not contain credentials"],
    ["https://example.com/a\\b", "must not contain backslashes"],
    ["https://127.0.0.1/hook", "must not point to a private, loopback, link-local or reserved address"],
    ["https://10.0.0.5:8443/hook", "must not point to a private, loopback, link-local or reserved address"],
    ["https://169.254.169.254/latest", "must not point to a private, loopback, link-local or reserved address"],
    ["https://[::1]/hook", "must not point to a private, loopback, link-local or reserved address"],
    ["https://[::ffff:127.0.0.1]/hook", "must not point to a private, loopback, link-local or reserved address"],
  ];
  for (const [url, message] of cases) {
    t.same(
      validateWebhookUrl(url),
      message === null ? [] : [{ field: "webhook_url", message }],
      JSON.stringify(url).slice(0, 80),
    );
  }
  t.end();
});

t.test("an allowlisted address literal is accepted; the field name can be chosen", (t) => {
  const { networks } = parseAllowedNetworks("127.0.0.1/32");
  t.same(validateWebhookUrl("https://127.0.0.1:8443/hook", { allowedNetworks: networks }), []);
  t.same(validateWebhookUrl("https://127.0.0.2/hook", { allowedNetworks: networks }).length, 1);
  t.same(validateWebhookUrl("http://x.example", { field: "url" }), [{ field: "url", message: "must use https" }]);
  t.end();
});

t.test("assertWebhookUrl throws validation_failed with field errors", (t) => {
  t.doesNotThrow(() => assertWebhookUrl("https://example.com/h"));
  try {
    assertWebhookUrl("http://example.com/h");
    t.fail("should throw");
  } catch (e) {
    t.ok(isCoreError(e));
    if (isCoreError(e)) {
      t.equal(e.code, "validation_failed");
      t.same(e.errors, [{ field: "webhook_url", message: "must use https" }]);
    }
  }
  t.end();
});

t.test("parseWebhookUrl gives the parts the client connects with", (t) => {
  t.same(parseWebhookUrl("https://Example.com/a?b=1"), {
    scheme: "https",
    host: "example.com",
    port: 443,
    pathAndQuery: "/a?b=1",
  });
  t.same(parseWebhookUrl("https://[::1]:8443"), { scheme: "https", host: "::1", port: 8443, pathAndQuery: "/" });
  t.equal(parseWebhookUrl("nonsense"), undefined);
  // A literal host is checked by the address rules as it is written.
  t.ok(isForbiddenAddress((parseWebhookUrl("https://[::1]/") as { host: string }).host));
  t.end();
});

t.test("destinationKey groups requests by scheme, host and port", (t) => {
  const cases: [string, string][] = [
    ["https://Example.com/a", "https://example.com:443"],
    ["https://example.com:443/b?x", "https://example.com:443"],
    ["https://example.com:8443/", "https://example.com:8443"],
    ["HTTPS://API.example.com", "https://api.example.com:443"],
    ["https://[2001:DB8::1]:9000/x", "https://[2001:db8::1]:9000"],
    ["http://example.com/", "http://example.com:80"],
  ];
  for (const [url, key] of cases) t.equal(destinationKey(url), key, url);
  t.throws(() => destinationKey("not a url"), { code: "validation_failed" });
  t.end();
});
