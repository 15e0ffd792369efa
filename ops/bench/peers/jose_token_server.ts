// A minimal node:http + jose client_credentials token server: the "what a hand-written endpoint
// costs" baseline of the token benchmark. Env: PORT, CLIENT_ID, CLIENT_SECRET, SCOPES
// (space-separated, default "issued_badges"). Prints "listening <port>" when ready.

import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { generateKeyPair, SignJWT } from "jose";

const port = Number(process.env.PORT ?? "0");
if (!Number.isInteger(port) || port <= 0) throw new Error("PORT must be a positive integer");
const clientId = process.env.CLIENT_ID ?? "bench-client";
const clientSecret = process.env.CLIENT_SECRET ?? "bench-secret-bench-secret-bench-secret";
const allowedScopes = new Set((process.env.SCOPES ?? "issued_badges").split(" ").filter(Boolean));

const TTL_SECONDS = 7200;
const MAX_BODY_BYTES = 16 * 1024;
const issuer = `http://127.0.0.1:${port}`;
const { privateKey } = await generateKeyPair("EdDSA");
const KID = "bench-ed25519";

// Digests have equal length whatever the inputs, so timingSafeEqual never sees a length mismatch.
const digest = (value: string): Buffer => createHash("sha256").update(value).digest();
const expectedId = digest(clientId);
const expectedSecret = digest(clientSecret);

function clientFromBasic(header: string | undefined): { id: string; secret: string } | undefined {
  if (header === undefined || !/^basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon === -1) return undefined;
  try {
    // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
    const formDecode = (part: string): string => decodeURIComponent(part.replace(/\+/g, " "));
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload),
    "cache-control": "no-store",
    pragma: "no-cache",
    ...headers,
  });
  res.end(payload);
}

function oauthError(res: ServerResponse, status: number, error: string, description: string): void {
  const headers: Record<string, string> = status === 401 ? { "www-authenticate": 'Basic realm="token"' } : {};
  send(res, status, { error, error_description: description }, headers);
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url !== "/oauth/token") return send(res, 404, { error: "not_found" });
  if (req.method !== "POST") return send(res, 405, { error: "method_not_allowed" }, { allow: "POST" });
  const contentType = req.headers["content-type"] ?? "";
  if (!contentType.startsWith("application/x-www-form-urlencoded")) {
    return oauthError(res, 400, "invalid_request", "body must be application/x-www-form-urlencoded");
  }
  const raw = await readBody(req);
  if (raw === undefined) return oauthError(res, 400, "invalid_request", "body too large");
  const params = new URLSearchParams(raw);

  const client = clientFromBasic(req.headers.authorization);
  const idOk = client !== undefined && timingSafeEqual(digest(client.id), expectedId);
  const secretOk = client !== undefined && timingSafeEqual(digest(client.secret), expectedSecret);
  if (!idOk || !secretOk) return oauthError(res, 401, "invalid_client", "client authentication failed");

  if (params.get("grant_type") !== "client_credentials") {
    return oauthError(res, 400, "unsupported_grant_type", "only client_credentials is supported");
  }
  const requested = (params.get("scope") ?? "").split(" ").filter(Boolean);
  if (requested.length === 0 || !requested.every((scope) => allowedScopes.has(scope))) {
    return oauthError(res, 400, "invalid_scope", "scope must be a non-empty subset of the allowed scopes");
  }
  const scope = [...new Set(requested)].join(" ");

  const now = Math.floor(Date.now() / 1000);
  const accessToken = await new SignJWT({ client_id: clientId, scope })
    .setProtectedHeader({ alg: "EdDSA", typ: "at+jwt", kid: KID })
    .setIssuer(issuer)
    .setSubject(clientId)
    .setJti(randomUUID())
    .setIssuedAt(now)
    .setExpirationTime(now + TTL_SECONDS)
    .sign(privateKey);
  send(res, 200, { access_token: accessToken, token_type: "Bearer", expires_in: TTL_SECONDS, scope, created_at: now });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    console.error(error);
    if (!res.headersSent) send(res, 500, { error: "server_error" });
  });
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => {
  console.log(`listening ${port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
