import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { parseAllowedNetworks } from "../core/webhooks/mod.ts";
import type { WebhookConfig } from "./webhook_config.ts";

/**
 * `WEBHOOK_DEV_RECEIVER=<port>` on `npm start`, for trying webhooks on one machine: an HTTPS
 * receiver on loopback that answers 200 to every POST and prints each delivery plainly (its
 * signature headers and body), with a certificate of a test CA made for it in
 * `DATA_DIR/dev-receiver/`. The process then trusts that CA beside the system roots (and beside
 * `WEBHOOK_CA_FILE`) and lets webhooks reach loopback addresses: everything the SSRF rule and TLS
 * verification refuse for a real deployment, so it is refused when `NODE_ENV=production`.
 */
export interface DevReceiver {
  url: string;
  close(): Promise<void>;
}

/** A certificate is made again when it has less than this left. */
const RENEW_BEFORE_MS = 24 * 3_600_000;
const DAYS = "30";

interface DevCertificates {
  caFile: string;
  key: string;
  cert: string;
}

const fresh = (pem: string, now: Date): boolean => {
  try {
    return new Date(new X509Certificate(pem).validTo).getTime() - now.getTime() > RENEW_BEFORE_MS;
  } catch {
    return false;
  }
};

/** The test CA and the receiver's certificate for `localhost` and 127.0.0.1 (openssl), made once. */
const devCertificates = (dir: string, now: Date): DevCertificates => {
  const p = (f: string): string => join(dir, f);
  const ready = ["ca.pem", "server.key", "server.pem"].every((f) => existsSync(p(f)));
  if (ready && fresh(readFileSync(p("server.pem"), "utf8"), now) && fresh(readFileSync(p("ca.pem"), "utf8"), now)) {
    return {
      caFile: p("ca.pem"),
      key: readFileSync(p("server.key"), "utf8"),
      cert: readFileSync(p("server.pem"), "utf8"),
    };
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const run = (args: string[]): void => {
    execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  run([
    "req",
    "-x509",
    ...ec,
    "-keyout",
    p("ca.key"),
    "-out",
    p("ca.pem"),
    "-days",
    DAYS,
    "-subj",
    "/CN=Laurel development webhook receiver CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  run(["req", ...ec, "-keyout", p("server.key"), "-out", p("server.csr"), "-subj", "/CN=localhost"]);
  writeFileSync(
    p("ext.cnf"),
    "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  run([
    "x509",
    "-req",
    "-in",
    p("server.csr"),
    "-CA",
    p("ca.pem"),
    "-CAkey",
    p("ca.key"),
    "-CAcreateserial",
    "-out",
    p("server.pem"),
    "-days",
    DAYS,
    "-extfile",
    p("ext.cnf"),
  ]);
  // The CA's key signed the one certificate it is for; nothing else should ever be signed with it.
  for (const f of ["ca.key", "server.csr", "ext.cnf", "ca.srl"]) rmSync(p(f), { force: true });
  return {
    caFile: p("ca.pem"),
    key: readFileSync(p("server.key"), "utf8"),
    cert: readFileSync(p("server.pem"), "utf8"),
  };
};

const SIGNATURE_HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature"] as const;

/** One delivery as the terminal shows it. */
const readable = (url: string, headers: Record<string, string | string[] | undefined>, body: string): string => {
  let event = "";
  try {
    const json = JSON.parse(body) as { event_type?: unknown; id?: unknown };
    event = ` ${String(json.event_type)} ${String(json.id)}`;
  } catch {
    event = " (not JSON)";
  }
  return [
    "",
    `── Webhook delivery to ${url}:${event} (answered 200)`,
    ...SIGNATURE_HEADERS.map((h) => `   ${h}: ${String(headers[h] ?? "(none)")}`),
    `   ${body}`,
    "",
  ].join("\n");
};

/**
 * Starts the receiver on 127.0.0.1:`port` (0: any free port) and returns the webhook settings that
 * reach it: the test CA trusted, loopback allowed.
 */
export const startDevReceiver = async (opts: {
  port: number;
  dataDir: string;
  webhooks: WebhookConfig;
  now: Date;
  print: (text: string) => void;
}): Promise<{ receiver: DevReceiver; webhooks: WebhookConfig }> => {
  const dir = join(opts.dataDir, "dev-receiver");
  const certificates = devCertificates(dir, opts.now);
  let url = "";
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= 64 * 1024) chunks.push(c);
    });
    req.on("end", () => {
      if (req.method === "POST") opts.print(readable(url, req.headers, Buffer.concat(chunks).toString("utf8")));
      res.writeHead(req.method === "POST" ? 200 : 405, { "content-type": "text/plain" }).end("ok\n");
    });
  };
  const tls = { key: certificates.key, cert: certificates.cert };
  const listen = (server: Server, port: number, host: string): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
  const server = createServer(tls, handle);
  await listen(server, opts.port, "127.0.0.1");
  const port = (server.address() as AddressInfo).port;
  // `localhost` may resolve to ::1 first: the same receiver there too, where the machine has IPv6.
  const servers = [server];
  const v6 = createServer(tls, handle);
  if (
    await listen(v6, port, "::1").then(
      () => true,
      () => false,
    )
  )
    servers.push(v6);
  url = `https://localhost:${port}/`;
  // Trusted beside the system roots: the operator's own CA file too, when there is one.
  const trusted = join(dir, "trusted.pem");
  const own = opts.webhooks.caFile ? `${readFileSync(opts.webhooks.caFile, "utf8").trim()}\n` : "";
  writeFileSync(trusted, `${own}${readFileSync(certificates.caFile, "utf8")}`);
  const loopback = parseAllowedNetworks("127.0.0.1/32,::1/128").networks;
  return {
    receiver: {
      url,
      close: async () => {
        await Promise.all(
          servers.map(
            (srv) =>
              new Promise<void>((resolve) => {
                srv.close(() => resolve());
                srv.closeAllConnections();
              }),
          ),
        );
      },
    },
    webhooks: { ...opts.webhooks, caFile: trusted, allowedNetworks: [...opts.webhooks.allowedNetworks, ...loopback] },
  };
};
