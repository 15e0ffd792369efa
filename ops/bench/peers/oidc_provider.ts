// panva's oidc-provider set up for the client_credentials grant only, for the token benchmark.
// Env: PORT, CLIENT_ID, CLIENT_SECRET, FORMAT=opaque|jwt. Prints "listening <port>" when ready.
//
// Both formats go through the same resource-server configuration (a default resource indicator),
// so the two runs differ only in accessTokenFormat. Tokens live in the provider's default
// in-memory adapter.

import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { exportJWK, generateKeyPair } from "jose";
import Provider from "oidc-provider";

const port = Number(process.env.PORT ?? "0");
const clientId = process.env.CLIENT_ID ?? "bench-client";
const clientSecret = process.env.CLIENT_SECRET ?? "bench-secret-bench-secret-bench-secret";
const format = process.env.FORMAT ?? "opaque";
if (format !== "opaque" && format !== "jwt") throw new Error(`FORMAT must be opaque or jwt, got ${format}`);
if (!Number.isInteger(port) || port <= 0) throw new Error("PORT must be a positive integer");

const SCOPE = "issued_badges";
const RESOURCE = "urn:laurel:bench:api";
const TTL_SECONDS = 7200;

const { privateKey } = await generateKeyPair("EdDSA", { extractable: true });
const signingKey = { ...(await exportJWK(privateKey)), alg: "EdDSA", use: "sig", kid: "bench-ed25519" };

const issuer = `http://127.0.0.1:${port}`;
const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ["client_credentials"],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: "client_secret_basic",
      scope: SCOPE,
      // The only key is Ed25519; the default (RS256) would make the client invalid.
      id_token_signed_response_alg: "EdDSA",
    },
  ],
  clientAuthMethods: ["client_secret_basic"],
  scopes: [SCOPE],
  claims: {},
  jwks: { keys: [signingKey] },
  cookies: { keys: [randomBytes(32).toString("base64url")] },
  routes: { token: "/oauth/token" },
  ttl: { ClientCredentials: TTL_SECONDS, AccessToken: TTL_SECONDS },
  features: {
    devInteractions: { enabled: false },
    userinfo: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => RESOURCE,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: SCOPE,
        audience: RESOURCE,
        accessTokenTTL: TTL_SECONDS,
        accessTokenFormat: format,
        ...(format === "jwt" ? { jwt: { sign: { alg: "EdDSA" } } } : {}),
      }),
    },
  },
});
provider.on("server_error", (_ctx, error) => console.error("server_error", error));

const server = createServer(provider.callback());
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => {
  console.log(`listening ${port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
