// A bare node:http server answering every GET with one precomputed hosted assertion: the ceiling
// for Laurel's `GET /obi/v2/badge_assertions/<id>` (same bytes, same headers, same 304 handling).
// Env: PORT, BODY_BASE64 (the exact body), ETAG. Prints "listening <port>" when ready.

import { peerPort, serveGets } from "./bare_get_server.ts";

const port = peerPort();
const body = Buffer.from(process.env.BODY_BASE64 ?? "", "base64");
if (body.length === 0) throw new Error("BODY_BASE64 must hold the body to send");
const etag = process.env.ETAG ?? '"bare"';

const headers = {
  "content-type": "application/ld+json",
  "content-length": String(body.length),
  etag,
  "cache-control": "public, max-age=60",
  vary: "Accept",
};
const notModified = { etag, "cache-control": "public, max-age=60", vary: "Accept" };

serveGets(port, (req, res) => {
  if (req.headers["if-none-match"] === etag) {
    res.writeHead(304, notModified);
    res.end();
    return;
  }
  res.writeHead(200, headers);
  res.end(body);
});
