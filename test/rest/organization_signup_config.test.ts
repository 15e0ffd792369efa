import t from "tap";
import { readConfig } from "../../apps/config.ts";

t.test("ORGANIZATION_SIGNUP: closed by default, open when asked, anything else refused", async (t) => {
  t.equal(readConfig({}).organizationSignup, "closed");
  t.equal(readConfig({ ORGANIZATION_SIGNUP: "" }).organizationSignup, "closed");
  t.equal(readConfig({ ORGANIZATION_SIGNUP: "closed" }).organizationSignup, "closed");
  t.equal(readConfig({ ORGANIZATION_SIGNUP: "open" }).organizationSignup, "open");
  for (const bad of ["yes", "OPEN", "true"])
    t.throws(() => readConfig({ ORGANIZATION_SIGNUP: bad }), /ORGANIZATION_SIGNUP must be open or closed/, bad);
});
