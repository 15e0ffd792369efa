import { createServer, type Socket } from "node:net";

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The DATA section as sent (headers and body, dot-unstuffed). */
  data: string;
}

/**
 * A minimal SMTP server on loopback that accepts every message and keeps it: enough for
 * nodemailer (no STARTTLS, no AUTH advertised). Not a mail server; a test double at the wire.
 */
export const startSmtpSink = async (
  opts: {
    /** The answer to the n-th message (from 1); not 250: the message is refused and not kept. */
    answer?: (n: number, mail: ReceivedMail) => string;
  } = {},
): Promise<{ url: string; mails: ReceivedMail[]; close(): Promise<void> }> => {
  const mails: ReceivedMail[] = [];
  let received = 0;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.setEncoding("utf8");
    let buffer = "";
    let inData = false;
    let current: ReceivedMail = { from: "", to: [], data: "" };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply("220 sink.test ESMTP");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      for (;;) {
        if (inData) {
          const end = buffer.indexOf("\r\n.\r\n");
          if (end === -1) return;
          current.data = buffer.slice(0, end).replace(/^\.\./gm, ".");
          buffer = buffer.slice(end + 5);
          inData = false;
          const answer = opts.answer?.(++received, current) ?? "250 queued";
          if (answer.startsWith("250")) mails.push(current);
          current = { from: "", to: [], data: "" };
          reply(answer);
          continue;
        }
        const eol = buffer.indexOf("\r\n");
        if (eol === -1) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO" || verb === "HELO") reply("250 sink.test");
        else if (verb === "MAIL") {
          current.from = line.slice(10).trim();
          reply("250 ok");
        } else if (verb === "RCPT") {
          current.to.push(line.slice(8).trim());
          reply("250 ok");
        } else if (verb === "DATA") {
          inData = true;
          reply("354 go ahead");
        } else if (verb === "QUIT") {
          reply("221 bye");
          socket.end();
        } else reply("250 ok");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
};

/**
 * A Laurel sending its mail to an SMTP sink, started before the file's tests and stopped after them:
 * `mailed.laurel` and `mailed.smtp` are set once the tests run.
 */
export const laurelWithMailSink = <L extends { close(): Promise<void> }>(
  tap: { before(fn: () => Promise<void>): void; teardown(fn: () => Promise<void>): void },
  start: (env: Record<string, string>) => Promise<L>,
) => {
  const mailed = {} as { laurel: L; smtp: Awaited<ReturnType<typeof startSmtpSink>> };
  tap.before(async () => {
    mailed.smtp = await startSmtpSink();
    mailed.laurel = await start({ SMTP_URL: mailed.smtp.url });
  });
  tap.teardown(async () => {
    await mailed.laurel?.close();
    await mailed.smtp?.close();
  });
  return mailed;
};
