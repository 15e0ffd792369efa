import t from "tap";
import {
  activeSecrets,
  formatSignatureHeader,
  formatWebhookSecret,
  parseWebhookSecret,
  rotateSecrets,
  SECRET_ROTATION_OVERLAP_SECONDS,
  signingInput,
  webhookHeaders,
  webhookTimestamp,
} from "../../core/webhooks/mod.ts";

t.test("signing input is id.timestamp.body, byte for byte", (t) => {
  const id = "0190a0b0-0000-7000-8000-000000000001";
  const body = '{"id":"x","event_type":"badge.created"}';
  t.equal(signingInput(id, 1_700_000_000, body), `${id}.1700000000.${body}`);
  t.equal(signingInput("msg_1", 0, ""), "msg_1.0.");
  t.equal(signingInput("msg_1", 5, "a.b\nc"), "msg_1.5.a.b\nc");
  t.throws(() => signingInput("msg_1", 1.5, "{}"), RangeError);
  t.equal(webhookTimestamp(new Date("2023-11-14T22:13:20.999Z")), 1_700_000_000);
  t.end();
});

t.test("signature header and headers", (t) => {
  t.equal(formatSignatureHeader(["abc="]), "v1,abc=");
  t.equal(formatSignatureHeader(["new+/=", "old=="]), "v1,new+/= v1,old==");
  t.throws(() => formatSignatureHeader([]), RangeError);
  t.same(webhookHeaders({ webhookId: "evt", timestampSeconds: 42, signaturesBase64: ["s1", "s2"] }), {
    "webhook-id": "evt",
    "webhook-timestamp": "42",
    "webhook-signature": "v1,s1 v1,s2",
  });
  t.end();
});

t.test("webhook secret format", (t) => {
  const key32 = `${"A".repeat(42)}Q=`; // 32 bytes
  const cases: [string, string | undefined][] = [
    [`whsec_${key32}`, key32],
    [`whsec_${"MTIz".repeat(8)}`, "MTIz".repeat(8)], // 24 bytes
    [`whsec_${"AAAA".repeat(21)}AA==`, `${"AAAA".repeat(21)}AA==`], // 64 bytes
    [`whsec_${"AAAA".repeat(22)}`, undefined], // 66 bytes
    [`whsec_${"MTIz".repeat(7)}`, undefined], // 21 bytes
    [key32, undefined],
    [`WHSEC_${key32}`, undefined],
    ["whsec_", undefined],
    [`whsec_${"A".repeat(43)}`, undefined], // not a multiple of 4
    [`whsec_${"A".repeat(42)}-_`, undefined], // base64url is not the format
    [`whsec_${"A".repeat(40)}A=A=`, undefined],
    [`whsec_ ${key32}`, undefined],
  ];
  for (const [secret, expected] of cases) t.equal(parseWebhookSecret(secret), expected, secret);
  t.equal(formatWebhookSecret(key32), `whsec_${key32}`);
  t.equal(parseWebhookSecret(formatWebhookSecret(key32)), key32);
  t.end();
});

t.test("secret rotation: the previous secret signs beside the new one for 24 hours", (t) => {
  const t0 = new Date("2024-03-01T00:00:00.000Z");
  const s = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
  t.equal(SECRET_ROTATION_OVERLAP_SECONDS, 86_400);
  const rotated = rotateSecrets("whsec_old", "whsec_new", t0);
  t.same(rotated, { current: "whsec_new", previous: "whsec_old", previousExpiresAt: s(86_400) });
  const cases: [number, string[]][] = [
    [0, ["whsec_new", "whsec_old"]],
    [3_600, ["whsec_new", "whsec_old"]],
    [86_399, ["whsec_new", "whsec_old"]],
    [86_400, ["whsec_new"]],
    [200_000, ["whsec_new"]],
  ];
  for (const [at, expected] of cases)
    t.same(activeSecrets({ ...rotated, now: s(at) }), expected, `${at} s after rotation`);

  t.same(rotateSecrets(null, "whsec_first", t0), { current: "whsec_first", previous: null, previousExpiresAt: null });
  t.same(activeSecrets({ current: null, previous: null, previousExpiresAt: null, now: t0 }), []);
  t.same(
    activeSecrets({ current: "a", previous: "b", previousExpiresAt: null, now: t0 }),
    ["a"],
    "no expiry: not signing",
  );
  const twice = rotateSecrets(rotated.current, "whsec_newer", s(100));
  t.same(activeSecrets({ ...twice, now: s(200) }), ["whsec_newer", "whsec_new"], "a second rotation drops the oldest");
  t.end();
});
