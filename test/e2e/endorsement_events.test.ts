import PostalMime from "postal-mime";
import t from "tap";
import { Value } from "typebox/value";
import { EndorsementEventDetailSchema } from "../../core/endorsements/mod.ts";
import { apiClient, createTemplate, eventually, organization } from "../support/badges.ts";
import { signedInMember } from "../support/console.ts";
import { startLaurel } from "../support/laurel.ts";
import { laurelWithMailSink } from "../support/smtp_sink.ts";

/**
 * What an endorsement tells: each change is an event (Laurel's own `endorsement.*` kinds) in both
 * organizations' records, read back from the events API with its documented shape; a new one is
 * mailed to the endorsed organization's members who may answer it (owners and admins, not
 * issuers), once, with the endorser's words escaped.
 */
const mailed = laurelWithMailSink(t, (env) => startLaurel({ env }));

// biome-ignore lint/suspicious/noExplicitAny: event details of the API
type Json = any;

t.test("both sides' records hold each change; the endorsed side's answering members get one mail", async (t) => {
  const { laurel, smtp } = mailed;
  const api = apiClient(laurel);
  const a = await organization(laurel, "Guild <of> Welders");
  const b = await organization(laurel, "Rust Academy");
  await signedInMember(laurel, smtp, b.id, "owner@academy.example", "owner");
  await signedInMember(laurel, smtp, b.id, "issuer@academy.example", "issuer");
  const tpl = await createTemplate(laurel, b, { name: "Rust & Safety" });
  const events = async (org: { id: string; auth: string }, kind: string): Promise<Json[]> =>
    (await api("GET", `/organizations/${org.id}/events?event_type=${kind}`, org.auth)).body.data;

  const before = smtp.mails.length;
  const given = await api("POST", `/organizations/${a.id}/endorsements`, a.auth, {
    target_kind: "badge_template",
    target_id: tpl.id,
    comment: "Rigorous <script>alert(1)</script> assessment",
  });
  t.equal(given.status, 201);
  const id = given.body.data.id;

  for (const [name, org] of [
    ["the endorser", a],
    ["the endorsed", b],
  ] as const) {
    const created = await events(org, "endorsement.created");
    t.equal(created.length, 1, `${name}: one endorsement.created`);
    const detail = (await api("GET", `/organizations/${org.id}/events/${created[0].id}`, org.auth)).body.data;
    t.ok(Value.Check(EndorsementEventDetailSchema, detail), `${name}: the documented detail`);
    t.equal(detail.organization_id, org.id, `${name}: recorded in its own record`);
    t.match(detail.endorsement, { id, state: "pending", endorser_organization_id: a.id, target_name: "Rust & Safety" });
  }

  const mail = await eventually(async () =>
    smtp.mails.slice(before).find((m) => m.to.some((r) => r.includes("owner@academy.example"))),
  );
  const parsed = await PostalMime.parse(mail.data);
  t.equal(parsed.subject, 'Guild <of> Welders endorses "Rust & Safety"');
  t.match(parsed.html ?? "", "Rigorous &lt;script>alert(1)&lt;/script> assessment", "the words escaped");
  t.notMatch(parsed.html ?? "", "<script>", "no markup of theirs");
  t.match(parsed.html ?? "", `href="${laurel.origin}/console/${b.id}/endorsements"`, "a button to answer it");
  t.match(parsed.text ?? "", "Rigorous <script>alert(1)</script> assessment", "the text part as written");

  const accepted = await api("PUT", `/organizations/${b.id}/endorsements/${id}/accept`, b.auth);
  t.equal(accepted.status, 200);
  const withdrawn = await api("DELETE", `/organizations/${a.id}/endorsements/${id}`, a.auth);
  t.equal(withdrawn.status, 204);
  for (const [name, org] of [
    ["the endorser", a],
    ["the endorsed", b],
  ] as const) {
    const changed = await events(org, "endorsement.state.changed");
    const states = [];
    for (const e of changed) {
      const detail = (await api("GET", `/organizations/${org.id}/events/${e.id}`, org.auth)).body.data;
      states.push(detail.endorsement.state);
    }
    t.same(states, ["withdrawn", "accepted"], `${name}: each change, newest first`);
  }

  // Mail goes out when the sender's turn comes: wait for anything else to arrive, then count.
  await new Promise((r) => setTimeout(r, 1500));
  const toAcademy = smtp.mails.slice(before).flatMap((m) => m.to.filter((r) => r.includes("@academy.example")));
  t.same(toAcademy.length, 1, "one mail");
  t.match(toAcademy[0], "owner@academy.example", "one mail, to the owner; none to the issuer, none for the changes");
});
