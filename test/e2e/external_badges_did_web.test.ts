import t from "tap";
import { startEarnerWebhookServices } from "../support/earner_flows.ts";
import { httpEarner } from "../support/earner_http.ts";
import { startObIssuer } from "../support/ob_issuer.ts";

/**
 * An Open Badges 3.0 credential whose issuer is a did:web DID, pasted on the wallet: Laurel reads
 * the DID's document from the issuer's own HTTPS server (through the same guard as every fetch),
 * takes the key it lists for assertions, and verifies the credential; the DID is the verified
 * issuer. A document that stops listing the key leaves the next one unverified.
 */
const services = await startEarnerWebhookServices();
t.teardown(services.close);
const { laurel, smtp, ca } = services;
const issuer = await startObIssuer(ca);
t.teardown(issuer.close);

t.test("a did:web issuer's credential is verified with the key of its DID document", async (t) => {
  const ann = httpEarner(laurel.origin, smtp);
  await ann.signIn("ann@example.org");
  await ann.get("/wallet");
  const added = await ann.post("/wallet/external_badges", {
    credential: await issuer.credential("ann@example.org", {}, true),
  });
  t.equal(added.location, "/wallet?done=external_added#external", "added and verified");
  const [row] = await laurel.db.all<{ verification_status: string; details: { issuer_origin: string } }>(
    "select verification_status, details from external_badges order by created_at desc limit 1",
  );
  t.equal(row?.verification_status, "validated");
  t.equal(row?.details.issuer_origin, issuer.did, "the DID is the verified issuer");
  t.ok(issuer.requests.includes("/.well-known/did.json"), "its document was read from the issuer's own server");

  issuer.serve("/.well-known/did.json", { status: 200, json: { id: issuer.did, verificationMethod: [] } });
  const next = await ann.submit("/wallet/external_badges", {
    credential: await issuer.credential(
      "ann@example.org",
      { id: "urn:uuid:5b1c3c43-9e51-4b2a-9a55-3d1f4b7c0a11" },
      true,
    ),
  });
  t.equal(
    next.location,
    "/wallet?done=external_unverified#external",
    "a key the document does not list is not trusted",
  );
});
