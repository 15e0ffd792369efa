import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * A private CA and a certificate for localhost / 127.0.0.1 in `dir` (openssl CLI), made once: the
 * one-machine cluster's workers trust it (WEBHOOK_CA_FILE), and the soak's receiver serves with it.
 */
export const loopbackCa = (dir: string): { caFile: string; keyFile: string; certFile: string } => {
  const p = (f: string): string => join(dir, f);
  const files = { caFile: p("ca.pem"), keyFile: p("server.key"), certFile: p("server.pem") };
  if (existsSync(files.certFile)) return files;
  mkdirSync(dir, { recursive: true });
  const run = (args: string[]): void => {
    execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  };
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  const ca = ["-subj", "/CN=Laurel cluster loopback CA", "-addext", "basicConstraints=critical,CA:TRUE"];
  run(["req", "-x509", ...ec, "-keyout", p("ca.key"), "-out", files.caFile, "-days", "365", ...ca]);
  run(["req", ...ec, "-keyout", files.keyFile, "-out", p("server.csr"), "-subj", "/CN=localhost"]);
  writeFileSync(p("ext.cnf"), "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
  const sign = [
    "-CA",
    files.caFile,
    "-CAkey",
    p("ca.key"),
    "-CAcreateserial",
    "-days",
    "365",
    "-extfile",
    p("ext.cnf"),
  ];
  run(["x509", "-req", "-in", p("server.csr"), ...sign, "-out", files.certFile]);
  return files;
};
