import t from "tap";
import { type OrgFixture, organization } from "../support/badges.ts";
import { startLaurel, type TestLaurel } from "../support/laurel.ts";

/** A body of very many bad items answers with at most 100 field errors and a count of the rest. */
let laurel: TestLaurel;
let org: OrgFixture;
t.before(async () => {
  laurel = await startLaurel();
  org = await organization(laurel, "Errors");
});
t.teardown(() => laurel.close());

const post = async (path: string, body: string) => {
  const res = await fetch(`${laurel.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: org.auth, "content-type": "application/json" },
    body,
  });
  const text = await res.text();
  return { status: res.status, bytes: text.length, body: JSON.parse(text) };
};

type Errors = Array<{ field: string; message: string }>;

/** One batch item with `keys` unknown keys: one field error each. */
const badItem = (keys: number) => `{${Array.from({ length: keys }, (_, i) => `"k${i}":0`).join(",")}}`;

const counted = (errors: Errors): number =>
  Number(/^(\d+) more errors not listed$/.exec(errors[100]?.message ?? "")?.[1]);

t.test("a batch of 100 bad items: 100 errors and the count of the rest", async (t) => {
  const body = `{"badges":[${new Array(100).fill(badItem(1000)).join(",")}]}`;
  t.ok(body.length < 1024 * 1024, `the body fits the limit (${body.length} bytes)`);
  const res = await post(`${org.badges}/batch`, body);
  t.equal(res.status, 422);
  const errors = res.body.data.errors as Errors;
  t.equal(errors.length, 101, "100 listed and one counting the rest");
  t.equal(errors[100]?.field, "errors");
  // Every item misses its required fields and has unknown keys: several errors each.
  t.ok(counted(errors) >= 100, `the rest are counted (${counted(errors)})`);
  t.notOk(
    errors.some((e) => e.field.startsWith("badges.99.")),
    "the last item's errors are among those not listed",
  );
  t.ok(res.bytes < 20_000, `a small answer (${res.bytes} bytes)`);
});

t.test("a few errors are listed as they are", async (t) => {
  const res = await post(`${org.badges}/batch`, `{"badges":[${badItem(3)}]}`);
  t.equal(res.status, 422);
  const errors = res.body.data.errors as Errors;
  t.ok(errors.length > 3 && errors.length < 100);
  t.notOk(errors.some((e) => e.field === "errors"));
});
