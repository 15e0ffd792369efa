import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect, nkeys } from "@nats-io/transport-node";
import t from "tap";
import { type NatsSecurity, natsConnectOptions, startLocalNats } from "../../adapters/bus/mod.ts";
import { tempDir } from "../support/services.ts";
import { makeTestCa } from "../support/webhooks.ts";

/** Laurel reaches a NATS that asks for credentials (NATS_URL user and password, NATS_CREDS) and TLS (NATS_CA_FILE). */

const dir = tempDir("laurel-nats-sec-");
t.teardown(() => dir.remove());

/** Connects once, without retrying: true when the server let us in. */
const reaches = async (url: string, security: NatsSecurity = {}): Promise<boolean> => {
  try {
    const nc = await connect({
      ...natsConnectOptions(url, "laurel-test", security),
      waitOnFirstConnect: false,
      maxReconnectAttempts: 0,
      timeout: 3000,
    });
    await nc.flush();
    await nc.close();
    return true;
  } catch {
    return false;
  }
};

t.test("connect options: a user and password in NATS_URL, tls:// URLs", async (t) => {
  const o = natsConnectOptions("nats://laurel:p%40ss@10.0.0.1:4222, nats://10.0.0.2:4222", "n");
  t.same(o.servers, ["nats://10.0.0.1:4222", "nats://10.0.0.2:4222"], "no secret left in the server list");
  t.equal(o.user, "laurel");
  t.equal(o.pass, "p@ss");
  t.same(natsConnectOptions("tls://10.0.0.1:4222", "n").tls, {});
  t.same(natsConnectOptions("nats://10.0.0.1:4222", "n", { caFile: "/ca.pem" }).tls, { caFile: "/ca.pem" });
  t.equal(natsConnectOptions("nats://10.0.0.1:4222", "n").tls, undefined);
  t.equal(natsConnectOptions("nats://10.0.0.1:4222", "n").authenticator, undefined);
});

t.test("user and password written in NATS_URL", async (t) => {
  const nats = await startLocalNats({ storeDir: join(dir.path, "a"), args: ["--user", "laurel", "--pass", "s3cret"] });
  t.teardown(() => nats.stop());
  const port = new URL(nats.url).port;
  t.ok(await reaches(`nats://laurel:s3cret@127.0.0.1:${port}`));
  t.notOk(await reaches(`nats://127.0.0.1:${port}`), "refused without them");
  t.notOk(await reaches(`nats://laurel:wrong@127.0.0.1:${port}`));
});

t.test("an nkey user through a NATS_CREDS file", async (t) => {
  const user = nkeys.createUser();
  const seed = new TextDecoder().decode(user.getSeed());
  const conf = join(dir.path, "nkey.conf");
  writeFileSync(conf, `authorization { users = [ { nkey: ${user.getPublicKey()} } ] }\n`);
  const nats = await startLocalNats({ storeDir: join(dir.path, "b"), args: ["-c", conf] });
  t.teardown(() => nats.stop());
  const creds = join(dir.path, "laurel.creds");
  writeFileSync(
    creds,
    `-----BEGIN NATS USER JWT-----\neyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.e30.c2ln\n------END NATS USER JWT------\n\n` +
      `-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`,
  );
  t.ok(await reaches(nats.url, { credsFile: creds }));
  t.notOk(await reaches(nats.url), "refused without it");
});

t.test("TLS with the CA of NATS_CA_FILE", async (t) => {
  const ca = makeTestCa();
  t.teardown(() => ca.remove());
  const cert = join(ca.dir, "nats.pem");
  const key = join(ca.dir, "nats.key");
  writeFileSync(cert, ca.cert);
  writeFileSync(key, ca.key);
  const nats = await startLocalNats({
    storeDir: join(dir.path, "c"),
    args: ["--tls", "--tlscert", cert, "--tlskey", key],
  });
  t.teardown(() => nats.stop());
  t.ok(await reaches(nats.url, { caFile: ca.caFile }));
  t.notOk(await reaches(nats.url), "a certificate no system CA signed is refused");
});
