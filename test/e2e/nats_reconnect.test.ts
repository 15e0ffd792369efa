import t from "tap";
import { freePort, startLocalNats } from "../../adapters/bus/mod.ts";
import { basic, startLaurel } from "../support/laurel.ts";
import { tempDir } from "../support/services.ts";

t.test("a process reconnecting to NATS drops its cached credentials", async (t) => {
  const dir = tempDir("laurel-nats-");
  const port = await freePort();
  let nats = await startLocalNats({ storeDir: dir.path, port });
  const laurel = await startLaurel({ nats: { ...nats, dir: dir.path } });
  t.teardown(async () => {
    await laurel.close();
    await nats.stop();
    dir.remove();
  });
  const { organization, authorization_token } = await laurel.createOrganization("Reconnect");
  const list = () =>
    fetch(`${laurel.baseUrl}/organizations/${organization.id}/oauth_applications`, {
      headers: { authorization: basic(authorization_token.token) },
    });
  t.equal((await list()).status, 200, "the token is now cached");

  // While NATS is away the token is revoked elsewhere: its revocation message never arrives here.
  await nats.stop();
  await laurel.db.all("update authorization_tokens set revoked_at = now() where id = ?", [authorization_token.id]);
  t.equal((await list()).status, 200, "still cached while cut off (the 30 s cache)");
  nats = await startLocalNats({ storeDir: dir.path, port });
  const deadline = Date.now() + 10_000;
  let status = 200;
  while (Date.now() < deadline && status === 200) {
    await new Promise((r) => setTimeout(r, 200));
    status = (await list()).status;
  }
  t.equal(status, 401, "refused once the connection came back");
});
