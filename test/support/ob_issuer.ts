import { createHash, generateKeyPairSync, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:https";
import { exportJWK, SignJWT } from "jose";
import type { TestCa } from "./webhooks.ts";

/** One document the issuer serves: a JSON body (or raw text) with a status and headers. */
export interface Served {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

const sha256Hex = (s: string): string => createHash("sha256").update(s, "utf8").digest("hex");

/**
 * Another issuer, on its own HTTPS server behind the test CA (`https://localhost:<port>`): it
 * hosts Open Badges 2.0 assertions, badge classes and its profile, and signs Open Badges 3.0
 * VC-JWTs with an Ed25519 key it serves at `<origin>/keys/1`. Any path can be set to answer
 * anything (`serve`), so a test can revoke, break or redirect a document.
 */
export const startObIssuer = async (ca: TestCa) => {
  const routes = new Map<string, Served>();
  /** The path of every request the issuer received, in order. */
  const requests: string[] = [];
  let server: Server | undefined;
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  server = createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    requests.push((req.url ?? "/").split("?")[0] as string);
    const served = routes.get((req.url ?? "/").split("?")[0] as string);
    if (!served) return void res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
    const body = served.text ?? JSON.stringify(served.json ?? null);
    res.writeHead(served.status, { "content-type": "application/ld+json", ...served.headers }).end(body);
  });
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const origin = `https://localhost:${port}`;
  const kid = `${origin}/keys/1`;
  routes.set("/keys/1", { status: 200, json: { ...(await exportJWK(publicKey)), kid, alg: "EdDSA" } });
  // The same key as a did:web DID's, in its DID document at /.well-known/did.json.
  const did = `did:web:localhost%3A${port}`;
  routes.set("/.well-known/did.json", {
    status: 200,
    json: {
      "@context": ["https://www.w3.org/ns/did/v1"],
      id: did,
      verificationMethod: [
        { id: `${did}#key-1`, type: "JsonWebKey", controller: did, publicKeyJwk: await exportJWK(publicKey) },
      ],
      assertionMethod: [`${did}#key-1`],
    },
  });
  routes.set("/images/1.svg", {
    status: 200,
    headers: { "content-type": "image/svg+xml" },
    text: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><circle cx="32" cy="32" r="30" fill="#b45309"/><path d="M20 34l8 8 16-18" stroke="#fff" stroke-width="6" fill="none"/></svg>',
  });
  routes.set("/issuer", {
    status: 200,
    json: {
      "@context": "https://w3id.org/openbadges/v2",
      type: "Profile",
      id: `${origin}/issuer`,
      name: "Other Academy",
      url: origin,
      email: "badges@other.example",
    },
  });
  routes.set("/classes/1", {
    status: 200,
    json: {
      "@context": "https://w3id.org/openbadges/v2",
      type: "BadgeClass",
      id: `${origin}/classes/1`,
      name: "Rope Access Level 1",
      description: "Works safely at height on ropes.",
      image: `${origin}/images/1.svg`,
      criteria: { id: `${origin}/criteria/1`, narrative: "Pass the practical." },
      issuer: `${origin}/issuer`,
    },
  });

  return {
    origin,
    port,
    requests,
    /** Sets what `path` answers. */
    serve: (path: string, served: Served) => void routes.set(path, served),
    /**
     * A hosted OB 2.0 assertion to `email` (hashed with a salt) at `/assertions/<id>`; `fields`
     * replace or add fields of the document. Returns its address.
     */
    assertion(email: string, fields: Record<string, unknown> = {}): string {
      const path = `/assertions/${randomUUID()}`;
      const salt = randomUUID().replaceAll("-", "");
      routes.set(path, {
        status: 200,
        json: {
          "@context": "https://w3id.org/openbadges/v2",
          type: "Assertion",
          id: `${origin}${path}`,
          recipient: { type: "email", hashed: true, salt, identity: `sha256$${sha256Hex(email.toLowerCase() + salt)}` },
          badge: `${origin}/classes/1`,
          issuedOn: "2026-01-15T10:00:00Z",
          verification: { type: "hosted" },
          ...fields,
        },
      });
      return `${origin}${path}`;
    },
    /** The issuer as a did:web DID (`did:web:localhost%3A<port>`), whose document lists its key. */
    did,
    /**
     * An OB 3.0 VC-JWT to `email`, signed with the issuer's key; `claims` replace fields of the
     * credential. With `asDid`, the issuer is the did:web DID and the key is named as its method.
     */
    async credential(email: string, claims: Record<string, unknown> = {}, asDid = false): Promise<string> {
      const salt = randomUUID().replaceAll("-", "");
      const id = `${origin}/credentials/${randomUUID()}`;
      const payload = {
        "@context": [
          "https://www.w3.org/ns/credentials/v2",
          "https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json",
        ],
        id,
        type: ["VerifiableCredential", "OpenBadgeCredential"],
        issuer: { id: `${origin}/issuer`, type: ["Profile"], name: "Other Academy", url: origin },
        validFrom: "2026-01-15T10:00:00Z",
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
            id: `${origin}/achievements/1`,
            type: ["Achievement"],
            name: "Confined Space Entry",
            description: "Enters and works in confined spaces safely.",
            criteria: { narrative: "Pass the assessment." },
          },
        },
        iss: `${origin}/issuer`,
        jti: id,
        ...(asDid ? { issuer: { id: did, type: ["Profile"], name: "Other Academy", url: origin }, iss: did } : {}),
        ...claims,
      };
      return new SignJWT(payload)
        .setProtectedHeader({ alg: "EdDSA", typ: "vc+jwt", kid: asDid ? `${did}#key-1` : kid })
        .sign(privateKey);
    },
    close: () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
};
export type ObIssuer = Awaited<ReturnType<typeof startObIssuer>>;
