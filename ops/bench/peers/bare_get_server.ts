// What the bare peers share, so each file holds only what it answers: the PORT they are given, and
// a GET-only node:http server on loopback that prints "listening <port>" (what run.ts waits for)
// and stops on SIGTERM.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/** PORT, checked: run.ts always gives one. */
export const peerPort = (): number => {
  const port = Number(process.env.PORT ?? "0");
  if (!Number.isInteger(port) || port <= 0) throw new Error("PORT must be a positive integer");
  return port;
};

/** Serves `answer` for every GET on `port` (any other method gets 405), with keep-alive as Laurel's server. */
export const serveGets = (port: number, answer: (req: IncomingMessage, res: ServerResponse) => void): void => {
  const server = createServer((req, res) => {
    if (req.method !== "GET") {
      res.writeHead(405, { allow: "GET", "content-length": "0" });
      res.end();
      return;
    }
    answer(req, res);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(port, "127.0.0.1", () => {
    console.log(`listening ${port}`);
  });
  process.on("SIGTERM", () => server.close(() => process.exit(0)));
};
