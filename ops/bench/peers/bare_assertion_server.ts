// A bare node:http server answering every GET with one precomputed hosted assertion: the ceiling
// for Laurel's `GET /obi/v2/badge_assertions/<id>` (same bytes, same headers, same 304 handling).
// Env: PORT, BODY_BASE64 (the exact body), ETAG. Prints "listening <port>" when ready.

import { createServer } from "node:http";

const port = Number(process.env.PORT ?? "0");
if (!Number.isInteger(port) || port <= 0) throw new Error("PORT must be a positive integer");
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

const server = createServer((req, res) => {
  if (req.method !== "GET") {
    res.writeHead(405, { allow: "GET", "content-length": "0" });
    res.end();
    return;
  }
  if (req.headers["if-none-match"] === etag) {
    res.writeHead(304, notModified);
    res.end();
    return;
  }
  res.writeHead(200, headers);
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(port, "127.0.0.1", () => {
  console.log(`listening ${port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
