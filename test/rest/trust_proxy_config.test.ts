import t from "tap";
import { readConfig } from "../../apps/config.ts";
import { readTrustProxy } from "../../apps/limits_config.ts";

t.test("TRUST_PROXY: addresses and CIDRs of the balancers, none by default", async (t) => {
  t.same(readConfig({}).limits.trustProxy, [], "unset: no proxy is trusted");
  t.same(readTrustProxy(""), []);
  t.same(readTrustProxy(" 10.0.0.5, 10.0.1.0/24 ,fd00::/8,::1 "), ["10.0.0.5", "10.0.1.0/24", "fd00::/8", "::1"]);
  for (const bad of ["balancer.internal", "10.0.0.0/33", "10.0.0.1/8/8", "fd00::/129", "10.0.0.0/", "true", "*"]) {
    t.throws(() => readTrustProxy(bad), /TRUST_PROXY must list IP addresses or CIDRs/, bad);
  }
});
