import { createHash, generateKeyPairSync, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { DataIntegrityProof } from "@digitalbazaar/data-integrity";
import { fromJwk } from "@digitalbazaar/ed25519-multikey";
import { cryptosuite } from "@digitalbazaar/eddsa-rdfc-2022-cryptosuite";
import { issue } from "@digitalbazaar/vc";
import * as oauth from "oauth4webapi";
import t from "tap";
import { pinnedDocumentLoader } from "../../adapters/crypto/mod.ts";
import { MULTIKEY_CONTEXT, OB_V3_CONTEXT, SECURITY_V2_CONTEXT, VC_V2_CONTEXT } from "../../core/obi/mod.ts";
import { startEarnerWebhookStack } from "../support/earner_flows.ts";
import { startObIssuer } from "../support/ob_issuer.ts";
import { ob3SchemaErrors } from "../support/ob3.ts";
import { obApiSchemaErrors } from "../support/ob3_api.ts";

/**
 * upsertCredential with a JSON AchievementCredential carrying a Data Integrity proof
 * (eddsa-rdfc-2022), delivered by a platform (oauth4webapi) the earner authorized in Chromium.
 * Other issuers sign with Digital Bazaar's libraries: one identified by a did:key (nothing to
 * fetch), one by an https profile listing its Multikey, one on a private address the network
 * rules refuse. Refusals answer 1EdTech's Imsx_StatusInfo body.
 */

// biome-ignore lint/suspicious/noExplicitAny: API bodies of many shapes
type Json = any;

const stack = await startEarnerWebhookStack();
t.teardown(stack.close);
const { laurel, browser, ca } = stack;
const otherIssuer = await startObIssuer(ca);
t.teardown(otherIssuer.close);

let callbackServer: Server;
let ORIGIN = "";
let REDIRECT = "";
t.before(async () => {
  callbackServer = createServer((_req, res) => res.end("platform callback"));
  await new Promise<void>((resolve) => callbackServer.listen(0, "127.0.0.1", resolve));
  ORIGIN = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}`;
  REDIRECT = `${ORIGIN}/callback`;
});
t.teardown(() => void callbackServer?.close());

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const UPSERT = "https://purl.imsglobal.org/spec/ob/v3p0/scope/credential.upsert";
const sha256Hex = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

/** A platform registered and authorized by the earner (signed in as `email`): its access token. */
const authorizedPlatform = async (email: string) => {
  const sdd: Json = await (await fetch(`${laurel.baseUrl}/ims/ob/v3p0/discovery`)).json();
  const scheme = sdd.components.securitySchemes.OAuth2ACG;
  const registered: Json = await (
    await fetch(scheme["x-imssf-registrationUrl"], {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Wallet Platform",
        client_uri: `${ORIGIN}/`,
        logo_uri: `${ORIGIN}/logo.png`,
        tos_uri: `${ORIGIN}/terms`,
        policy_uri: `${ORIGIN}/privacy`,
        software_id: "0d5b1d2e-6a3f-4c2b-9e43-5f1a9b7c8d21",
        software_version: "1.0",
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: "client_secret_basic",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        scope: UPSERT,
      }),
    })
  ).json();
  const client: oauth.Client = { client_id: registered.client_id };
  const metadata: Json = await (await fetch(`${laurel.authUrl}/.well-known/oauth-authorization-server`)).json();
  const as: oauth.AuthorizationServer = {
    issuer: metadata.issuer,
    authorization_endpoint: scheme.flows.authorizationCode.authorizationUrl,
    token_endpoint: scheme.flows.authorizationCode.tokenUrl,
  };
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint as string);
  for (const [k, v] of Object.entries({
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    response_type: "code",
    scope: UPSERT,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  })) {
    url.searchParams.set(k, v);
  }
  const context = await browser.newContext();
  const page = await stack.signIn(context, email);
  await page.goto(url.toString());
  if (!(await page.isVisible("button:has-text('Allow')"))) {
    throw new Error(`no consent: ${JSON.stringify(registered)} ${await page.textContent("main")}`);
  }
  await Promise.all([page.waitForURL(`${REDIRECT}**`), page.click("button:has-text('Allow')")]);
  const params = oauth.validateAuthResponse(as, client, new URL(page.url()), state);
  const clientAuth = oauth.ClientSecretBasic(registered.client_secret);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, REDIRECT, verifier, insecure),
  );
  return { access: tokens.access_token, page };
};

/** An Ed25519 signer of Data Integrity proofs; `method` names its key as proofs say it. */
const keyPair = async () => {
  const { privateKey } = generateKeyPairSync("ed25519");
  const pair = await fromJwk({ jwk: privateKey.export({ format: "jwk" }), secretKey: true });
  const { algorithm, sign } = pair.signer();
  return {
    publicKeyMultibase: pair.publicKeyMultibase,
    sign: (credential: Json, method: string): Promise<Json> =>
      issue({
        credential,
        suite: new DataIntegrityProof({ signer: { id: method, algorithm, sign }, cryptosuite }),
        documentLoader: pinnedDocumentLoader,
      }),
  };
};

/** An unsigned OB 3.0 AchievementCredential from `issuerId` to `email` (hashed with a salt). */
const credentialTo = (email: string, issuerId: string, name: string): Json => {
  const salt = randomUUID().replaceAll("-", "");
  return {
    "@context": [VC_V2_CONTEXT, OB_V3_CONTEXT],
    id: `urn:uuid:${randomUUID()}`,
    type: ["VerifiableCredential", "OpenBadgeCredential"],
    issuer: { id: issuerId, type: ["Profile"], name: "Key Academy" },
    validFrom: "2026-01-15T10:00:00Z",
    name,
    credentialSubject: {
      type: ["AchievementSubject"],
      identifier: [
        {
          type: "IdentityObject",
          identityHash: `sha256$${sha256Hex(email.toLowerCase() + salt)}`,
          identityType: "emailAddress",
          hashed: true,
          salt,
        },
      ],
      achievement: {
        id: `urn:uuid:${randomUUID()}`,
        type: ["Achievement"],
        name,
        description: "Operates a forklift safely.",
        criteria: { narrative: "Pass the practical." },
      },
    },
  };
};

t.test("JSON credentials with a Data Integrity proof go to the wallet, verified", async (t) => {
  const email = "ada@example.org";
  const { access, page } = await authorizedPlatform(email);
  const credentialsUrl = `${laurel.baseUrl}/ims/ob/v3p0/credentials`;
  const post = (body: unknown, type = "application/json") =>
    fetch(credentialsUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${access}`, "content-type": type },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const stored = (id: string) =>
    laurel.db.one<{ verification_status: string; verification_reason: string | null; details: Json }>(
      "select verification_status, verification_reason, details from external_badges where source_key = ?",
      [id],
    );
  /** A refusal: 400 with an Imsx_StatusInfo body whose description matches `why`. */
  const refused = async (res: Response, why: RegExp, name: string) => {
    t.equal(res.status, 400, name);
    const body: Json = await res.json();
    t.same(obApiSchemaErrors("error", body), [], `${name}: Imsx_StatusInfo`);
    t.match(body.imsx_description, why, `${name}: says why`);
  };

  // An issuer known only by its did:key: the key is in the identifier, nothing is fetched.
  const keys = await keyPair();
  const did = `did:key:${keys.publicKeyMultibase}`;
  const signed = await keys.sign(credentialTo(email, did, "Forklift Operation"), `${did}#${keys.publicKeyMultibase}`);
  // 1EdTech's schema has `proof` as an array; the libraries write one proof as an object. Both are read.
  signed.proof = [signed.proof];
  t.same(ob3SchemaErrors("credential", signed), [], "the delivered credential passes 1EdTech's schema");
  const created = await post(signed);
  t.equal(created.status, 201, "a new credential");
  t.match(created.headers.get("content-type"), /^application\/json/);
  t.same(await created.json(), signed, "the credential is answered as delivered");
  const row = await stored(signed.id);
  t.equal(row?.verification_status, "validated", "verified like a pasted one");
  t.equal(row?.details.issuer_origin, did, "the issuer Laurel vouches for is the did:key");
  t.equal(row?.details.name, "Forklift Operation");
  await page.goto(`${laurel.origin}/wallet`);
  t.match(await page.textContent("main"), /Forklift Operation/, "it appears in the wallet");
  t.match(
    await page.textContent("#external [data-issuer-origin]"),
    `Issuer verified: ${did}`,
    "the verified identity is the did:key",
  );
  // The wallet's own field takes the same JSON, laid out as people paste it.
  const pasted = await keys.sign(credentialTo(email, did, "Pallet Jack"), `${did}#${keys.publicKeyMultibase}`);
  await page.fill("#external-credential", JSON.stringify(pasted, null, 2));
  await Promise.all([page.waitForNavigation(), page.click("button:has-text('Add badge')")]);
  t.match(await page.textContent(".notice"), /Badge added and verified/);
  t.match(await page.textContent("#external"), /Pallet Jack/);
  const again = await post(JSON.stringify(signed), "application/ld+json");
  t.equal(again.status, 200, "the same credential again (as JSON-LD) is an update, verified again");
  t.equal((await stored(signed.id))?.verification_status, "validated");

  // A field changed after signing: stored, as a pasted one would be, but not verified.
  const tampered = await keys.sign(credentialTo(email, did, "Crane Operation"), `${did}#${keys.publicKeyMultibase}`);
  tampered.credentialSubject.achievement.name = "Tower Crane Operation";
  t.equal((await post(tampered)).status, 201);
  t.match(await stored(tampered.id), { verification_status: "unvalidated", verification_reason: "signature_invalid" });

  // Another earner's credential, correctly signed: not hers.
  const notHers = await keys.sign(credentialTo("bob@example.org", did, "Welding"), `${did}#${keys.publicKeyMultibase}`);
  t.equal((await post(notHers)).status, 201);
  t.match(await stored(notHers.id), { verification_status: "unvalidated", verification_reason: "recipient_mismatch" });

  // An https issuer: its profile lists the Multikey it serves, both fetched under the network rules.
  const webKeys = await keyPair();
  const issuerId = `${otherIssuer.origin}/issuer-di`;
  const methodId = `${otherIssuer.origin}/multikeys/1`;
  otherIssuer.serve("/multikeys/1", {
    status: 200,
    json: {
      "@context": MULTIKEY_CONTEXT,
      id: methodId,
      type: "Multikey",
      controller: issuerId,
      publicKeyMultibase: webKeys.publicKeyMultibase,
    },
  });
  otherIssuer.serve("/issuer-di", {
    status: 200,
    json: {
      "@context": [VC_V2_CONTEXT, OB_V3_CONTEXT, SECURITY_V2_CONTEXT],
      id: issuerId,
      type: ["Profile"],
      name: "Web Academy",
      assertionMethod: [methodId],
    },
  });
  const fromWeb = await webKeys.sign(credentialTo(email, issuerId, "Scaffolding"), methodId);
  const webAnswer = await post(fromWeb);
  t.equal(webAnswer.status, 201);
  t.same(ob3SchemaErrors("credential", { ...(await webAnswer.json()), proof: [fromWeb.proof] }), []);
  t.match(await stored(fromWeb.id), {
    verification_status: "validated",
    details: { issuer_origin: otherIssuer.origin },
  });

  // A key on a private address: the fetch is refused by the network rules, nothing is verified.
  const privateIssuer = "https://10.20.30.40/issuer";
  const fromPrivate = await webKeys.sign(
    credentialTo(email, privateIssuer, "Rigging"),
    "https://10.20.30.40/multikeys/1",
  );
  t.equal((await post(fromPrivate)).status, 201);
  t.match(await stored(fromPrivate.id), { verification_status: "unvalidated", verification_reason: "blocked_address" });

  // Refused before anything is fetched or stored.
  const unsigned = credentialTo(email, did, "Unsigned");
  await refused(await post(unsigned), /no proof/, "a credential without a proof");
  const otherSuite = structuredClone(signed);
  otherSuite.id = `urn:uuid:${randomUUID()}`;
  otherSuite.proof[0].cryptosuite = "ecdsa-rdfc-2019";
  await refused(await post(otherSuite), /ecdsa-rdfc-2019.*eddsa-rdfc-2022/, "another cryptosuite");
  const otherType = structuredClone(signed);
  otherType.proof[0].type = "Ed25519Signature2020";
  await refused(await post(otherType), /Ed25519Signature2020/, "another proof type");
  const otherContext = structuredClone(signed);
  otherContext["@context"] = [...signed["@context"], "https://example.org/evil-context.jsonld"];
  await refused(await post(otherContext), /evil-context\.jsonld/, "an unpinned JSON-LD context");
  const didWeb = structuredClone(signed);
  didWeb.proof[0].verificationMethod = "did:web:issuer.example#key-1";
  await refused(await post(didWeb), /did:key.*https/, "another kind of verification method");
  await refused(await post("[1, 2]"), /VC-JWT/, "JSON that is no credential");
  t.equal(
    await laurel.db.one<{ n: string }>("select count(*)::text as n from external_badges").then((r) => r?.n),
    "6",
    "none of the refused ones is kept",
  );
});
