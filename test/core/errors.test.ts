import t from "tap";
import { CoreError, capFieldErrors, isCoreError, orNotFound, validationFailed } from "../../core/errors/mod.ts";

t.test("validationFailed carries its field errors and code", (t) => {
  const e = validationFailed("bad", [{ field: "name", message: "is required" }]);
  t.ok(isCoreError(e));
  t.equal(e.code, "validation_failed");
  t.same(e.errors, [{ field: "name", message: "is required" }]);
  t.notOk(isCoreError(new Error("x")));
  t.equal(new CoreError("not_found", "x", { cause: 1 }).cause, 1);
  t.end();
});

t.test("field errors are capped at 100 and the rest counted", (t) => {
  const errors = (n: number) => Array.from({ length: n }, (_, i) => ({ field: `f${i}`, message: "bad" }));
  t.same(capFieldErrors(errors(3)), errors(3));
  t.same(capFieldErrors(errors(100)), errors(100));
  const capped = capFieldErrors(errors(101));
  t.equal(capped.length, 101);
  t.same(capped[100], { field: "errors", message: "1 more error not listed" });
  t.same(capFieldErrors(errors(300_000)).at(-1), { field: "errors", message: "299900 more errors not listed" });
  t.same(capFieldErrors(errors(5), 2), [...errors(2), { field: "errors", message: "3 more errors not listed" }]);
  t.end();
});

t.test("orNotFound passes a found value through and throws not_found for null or undefined", (t) => {
  const found = { id: 1 };
  t.equal(orNotFound(found, "Badge"), found);
  t.equal(orNotFound(0, "Count"), 0);
  t.throws(() => orNotFound(null, "Badge"), { code: "not_found", message: "Badge not found" });
  t.throws(() => orNotFound(undefined, "Import"), { code: "not_found", message: "Import not found" });
  t.end();
});
