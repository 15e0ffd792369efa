import { createHash } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply } from "fastify";
import { Type } from "typebox";
import { credentialUrl, obiVisibility } from "../../../core/obi/mod.ts";
import { ErrorBody, errorBody } from "../../http/mod.ts";
import {
  badgeRecords,
  dataIntegrityCredentials,
  JSON_TYPE,
  LD_JSON,
  matchesIfNoneMatch,
  obiMediaType,
} from "../../obi/mod.ts";
import type { RestDeps } from "../deps.ts";
import { ANONYMOUS } from "../rate_limits.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CACHE_CONTROL = "public, max-age=60";
const KEY_CACHE_CONTROL = "public, max-age=3600";

const answer = (description: string, types: string[], schema: object) => ({
  description,
  content: Object.fromEntries(types.map((type) => [type, { schema }])),
});
const notFound = (what: string) => Buffer.from(JSON.stringify(errorBody("not_found", `${what} not found`)), "utf8");
const etagOf = (body: Buffer): string => `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;

/**
 * A signed JSON-LD document (`application/ld+json`, or `application/json` when only that is
 * accepted) with an ETag per media type (the same bytes under two types are two representations),
 * or a 304 when If-None-Match names it.
 */
export const sendSignedJsonLd = (
  reply: FastifyReply,
  headers: IncomingHttpHeaders,
  body: Buffer,
  cacheControl: string,
): FastifyReply => {
  const type = obiMediaType(headers.accept);
  const etag = etagOf(body);
  const tagged = type === JSON_TYPE ? `${etag.slice(0, -1)}.json"` : etag;
  reply.header("cache-control", cacheControl).header("vary", "Accept").header("etag", tagged).type(type);
  if (matchesIfNoneMatch(headers["if-none-match"], tagged)) return reply.code(304).send();
  return reply.send(body);
};

const MultikeySchema = Type.Object({
  "@context": Type.String({ format: "uri" }),
  id: Type.String({ format: "uri" }),
  type: Type.Literal("Multikey"),
  controller: Type.String({ format: "uri" }),
  publicKeyMultibase: Type.String(),
});
const SignedCredentialSchema = Type.Object(
  {
    "@context": Type.Array(Type.String()),
    id: Type.String({ format: "uri" }),
    proof: Type.Object(
      {
        type: Type.Literal("DataIntegrityProof"),
        cryptosuite: Type.Literal("eddsa-rdfc-2022"),
        verificationMethod: Type.String({ format: "uri" }),
        proofPurpose: Type.Literal("assertionMethod"),
        proofValue: Type.String(),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

/**
 * The OB 3.0 credentials as JSON-LD with an embedded Data Integrity proof, for wallets and
 * verifiers that read only those (the W3C VC API's), beside the VC-JWT at the credential's own
 * address; and the verification method the proofs name. No credentials needed, as for every
 * hosted record. See docs/decisions.md for the addresses.
 */
export const obiDataIntegrityRoutes = (deps: RestDeps) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { issuing, credentials, sha256Hex } = deps.badges;
  const obiBase = `${deps.baseUrl}/obi/v2`;
  const v3Base = `${deps.baseUrl}/obi/v3`;
  const urls = { obiBase, v3Base, publicBase: issuing.urls.publicBase };
  const dataIntegrity = dataIntegrityCredentials({
    records: badgeRecords({ urls, credentials, sha256Hex }),
    signer: deps.badges.dataIntegrity,
    urls,
  });
  const tags = ["Hosted Open Badges"];
  const NOT_FOUND = answer(
    "No such record, or not public (a private, pending, rejected or deleted badge)",
    [JSON_TYPE],
    ErrorBody,
  );

  app.get("/obi/v3/credentials/:id/ldp", {
    config: ANONYMOUS,
    schema: {
      tags,
      summary:
        "Open Badges 3.0 OpenBadgeCredential of an accepted badge as JSON-LD with an embedded DataIntegrityProof (eddsa-rdfc-2022)",
      description:
        "The credential served as a VC-JWT at `/obi/v3/credentials/{id}`, with the same id and revocation status entry, secured by a Data Integrity proof instead. Its `verificationMethod` is a Multikey that the issuer's profile lists as its `assertionMethod`.",
      params: Type.Object({ id: Type.String() }),
      response: {
        200: answer(
          "The signed credential; application/json only when application/ld+json is not accepted",
          [LD_JSON, JSON_TYPE],
          SignedCredentialSchema,
        ),
        304: { description: "The representation named by If-None-Match is current", type: "null" },
        404: NOT_FOUND,
        410: answer(
          "Revoked",
          [LD_JSON, JSON_TYPE],
          Type.Object({ id: Type.String(), revoked: Type.Literal(true), revocationReason: Type.String() }),
        ),
      },
    },
    handler: async (request, reply) => {
      const id = request.params.id;
      const view = UUID.test(id) ? await issuing.store.getBadge(null, id.toLowerCase()) : null;
      const visibility = view ? obiVisibility(view.badge) : "not_found";
      if (!view || visibility === "not_found")
        return reply.code(404).header("cache-control", "no-store").type(JSON_TYPE).send(notFound("Credential"));
      if (visibility === "gone") {
        const revoked = {
          id: credentialUrl(v3Base, view.badge.id),
          revoked: true,
          revocationReason: view.badge.revocation_reason ?? "Revoked by the issuer",
        };
        return reply
          .code(410)
          .header("cache-control", CACHE_CONTROL)
          .header("vary", "Accept")
          .type(obiMediaType(request.headers.accept))
          .send(Buffer.from(JSON.stringify(revoked), "utf8"));
      }
      return sendSignedJsonLd(reply, request.headers, await dataIntegrity.signed(view), CACHE_CONTROL);
    },
  });

  app.get("/obi/v3/multikeys/:organization_id/:key", {
    config: ANONYMOUS,
    schema: {
      tags,
      summary: "The verification method a Data Integrity credential's proof names: a Multikey of the issuer",
      description:
        "Its `controller` is the issuer's id, whose profile lists this address as its `assertionMethod`. The key is the server's Ed25519 key (the one that signs EdDSA VC-JWTs).",
      params: Type.Object({ organization_id: Type.String(), key: Type.String() }),
      response: {
        200: answer("The Multikey document", [LD_JSON, JSON_TYPE], MultikeySchema),
        404: NOT_FOUND,
      },
    },
    handler: async (request, reply) => {
      const { organization_id: organizationId, key } = request.params;
      const method = UUID.test(organizationId) ? dataIntegrity.multikey(organizationId.toLowerCase(), key) : null;
      if (!method || !(await deps.organizations.get(organizationId.toLowerCase())))
        return reply.code(404).header("cache-control", "no-store").type(JSON_TYPE).send(notFound("Key"));
      return reply
        .header("cache-control", KEY_CACHE_CONTROL)
        .header("vary", "Accept")
        .type(obiMediaType(request.headers.accept))
        .send(Buffer.from(JSON.stringify(method), "utf8"));
    },
  });
};
