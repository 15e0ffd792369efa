import t from "tap";
import { CoreError, isCoreError, validationFailed } from "../../core/errors/mod.ts";

t.test("validationFailed carries its field errors and code", (t) => {
  const e = validationFailed("bad", [{ field: "name", message: "is required" }]);
  t.ok(isCoreError(e));
  t.equal(e.code, "validation_failed");
  t.same(e.errors, [{ field: "name", message: "is required" }]);
  t.notOk(isCoreError(new Error("x")));
  t.equal(new CoreError("not_found", "x", { cause: 1 }).cause, 1);
  t.end();
});
