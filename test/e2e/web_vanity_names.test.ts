import t from "tap";
import { httpEarner } from "../support/earner_http.ts";
import { startLaurel } from "../support/laurel.ts";
import { laurelWithMailSink } from "../support/smtp_sink.ts";

/**
 * A vanity name never takes the shape of an account id, and `/users/<x>` reads an id-shaped `x`
 * as an id only: no account can answer at another account's id.
 */
const mailed = laurelWithMailSink(t, (env) => startLaurel({ env }));

const idOf = async (email: string): Promise<string> => {
  const [row] = (await mailed.laurel.db.all("select user_id from user_emails where email_key = ?", [email])) as {
    user_id: string;
  }[];
  return row?.user_id as string;
};

t.test("a vanity name shaped like an id is refused; ids and names are separate namespaces", async (t) => {
  // An id that starts with a letter fits the name pattern; imported accounts (UUIDv4) may have one.
  const victimId = "c0ffee00-1234-4abc-8def-0123456789ab";
  await mailed.laurel.db.run(
    `insert into users (id, first_name, last_name, created_at, updated_at, public_profile)
     values (?, 'Vic', 'Tim', now(), now(), true)`,
    [victimId],
  );
  const visitor = httpEarner(mailed.laurel.origin, mailed.smtp);
  t.equal((await visitor.get(`/users/${victimId}`)).status, 200, "the victim's profile at their id");

  const attacker = httpEarner(mailed.laurel.origin, mailed.smtp);
  await attacker.signIn("attacker@example.org");
  await attacker.get("/account");
  for (const name of [victimId, victimId.toUpperCase(), victimId.replaceAll("-", "")]) {
    const answer = await attacker
      .post("/account/profile", { public_profile: "on", vanity_name: name })
      .catch((err: Error) => err.message);
    t.match(answer, /^POST \/account\/profile: 422/, `${name} is refused as a vanity name`);
  }
  t.equal(
    (await mailed.laurel.db.all("select 1 from users where vanity_name is not null")).length,
    0,
    "none was saved",
  );

  // A name saved before the rule (written here directly) is never reached: an id-shaped path is an id.
  const dashless = "abcdef0123454789abcdef0123456789";
  await mailed.laurel.db.run("update users set public_profile = true, vanity_name = ? where id = ?", [
    dashless,
    await idOf("attacker@example.org"),
  ]);
  t.equal((await attacker.get(`/users/${dashless}`)).status, 404, "an id-shaped name is not looked up as a name");
  const atVictimId = await attacker.get(`/users/${victimId.toUpperCase()}`);
  t.equal(atVictimId.status, 200);
  t.match(atVictimId.text, /Vic Tim/, "the id is the victim's, whatever its case");
  t.notMatch(atVictimId.text, /attacker/);
});
