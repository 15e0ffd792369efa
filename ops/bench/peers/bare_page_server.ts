// A bare node:http server answering every GET with one precomputed page: the ceiling for Laurel's
// public badge page `GET /badges/<id>` (same bytes, same response headers).
// Env: PORT, BODY_BASE64 (the exact body), HEADERS_JSON (the headers to send). Prints "listening <port>".

import { createServer } from "node:http";

const port = Number(process.env.PORT ?? "0");
if (!Number.isInteger(port) || port <= 0) throw new Error("PORT must be a positive integer");
const body = Buffer.from(process.env.BODY_BASE64 ?? "", "base64");
if (body.length === 0) throw new Error("BODY_BASE64 must hold the body to send");
const headers: Record<string, string | string[]> = {
  ...(JSON.parse(process.env.HEADERS_JSON ?? "{}") as Record<string, string | string[]>),
  "content-length": String(body.length),
};

const server = createServer((req, res) => {
  if (req.method !== "GET") {
    res.writeHead(405, { allow: "GET", "content-length": "0" });
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
