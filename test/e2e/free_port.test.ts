import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import t from "tap";
import { freePort } from "../../adapters/bus/mod.ts";

t.test("freePort picks bindable ports below the kernel's ephemeral range", async (t) => {
  const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
  const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
  for (const port of ports) {
    t.ok(port >= low - 12_000 && port < low, `${port} is below ${low}, where outgoing connections take theirs`);
  }
  t.ok(new Set(ports).size > 10, "picked at random, not one port again and again");
  const port = ports[0] as number;
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(port, "127.0.0.1", resolve));
  t.pass(`a server binds ${port}`);
  await new Promise((resolve) => server.close(resolve));
});
