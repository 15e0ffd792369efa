// A bare node:http server answering every GET with one precomputed page: the ceiling for Laurel's
// public badge page `GET /badges/<id>` (same bytes, same response headers).
// Env: PORT, BODY_BASE64 (the exact body), HEADERS_JSON (the headers to send). Prints "listening <port>".

import { peerPort, serveGets } from "./bare_get_server.ts";

const port = peerPort();
const body = Buffer.from(process.env.BODY_BASE64 ?? "", "base64");
if (body.length === 0) throw new Error("BODY_BASE64 must hold the body to send");
const headers: Record<string, string | string[]> = {
  ...(JSON.parse(process.env.HEADERS_JSON ?? "{}") as Record<string, string | string[]>),
  "content-length": String(body.length),
};

serveGets(port, (_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
