import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connectNats, freePort, type LocalNats, type NatsConnection, startLocalNats } from "../../adapters/bus/mod.ts";
import { clusterUrl, type NatsNodeSpec, natsNodeConfig } from "../../ops/cluster/nats_config.ts";
import { tempDir } from "./services.ts";
import { waitFor } from "./webhooks.ts";

const childrenOf = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

/** Until the cluster has elected its JetStream meta leader and answers the JetStream API. */
const jetStreamReady = async (url: string): Promise<void> => {
  const nc = await connectNats(url, "laurel-test-ready");
  try {
    await waitFor(
      "the JetStream cluster to elect a leader",
      async () => {
        try {
          await (await jetstreamManager(nc, { timeout: 2_000 })).getAccountInfo();
          return true;
        } catch {
          return false;
        }
      },
      30_000,
      250,
    );
  } finally {
    await nc.close();
  }
};

export interface ClusterNode {
  spec: NatsNodeSpec;
  running: LocalNats | undefined;
  /** Kills the node at once (SIGKILL): a crash, not a clean stop. */
  kill(): Promise<void>;
  start(): Promise<void>;
}

export interface TestNatsCluster {
  /** Every node's client URL, comma-separated (NATS_URL). */
  url: string;
  nodes: ClusterNode[];
  /** The node leading `stream` now. */
  leaderOf(nc: NatsConnection, stream: string): Promise<ClusterNode>;
  stop(): Promise<void>;
}

/**
 * A JetStream cluster of `size` nats-server nodes on loopback, each with its own config file. The
 * ports are free when picked but not held until a node binds them, and another test may take one
 * meanwhile: then the nodes that started are stopped and the cluster is made again on new ports.
 */
export const startTestNatsCluster = async (size = 3): Promise<TestNatsCluster> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startCluster(size);
    } catch (err) {
      if (attempt === 3 || !/address already in use/.test(String(err))) throw err;
    }
  }
};

const startCluster = async (size: number): Promise<TestNatsCluster> => {
  const dir = tempDir("laurel-nats-cluster-");
  const specs: NatsNodeSpec[] = [];
  for (let i = 1; i <= size; i++) {
    specs.push({
      name: `n${i}`,
      host: "127.0.0.1",
      port: await freePort(),
      clusterPort: await freePort(),
      monitorPort: 0,
      storeDir: join(dir.path, `n${i}`),
    });
  }
  const nodes = specs.map((spec): ClusterNode => {
    const config = join(dir.path, `${spec.name}.conf`);
    writeFileSync(config, natsNodeConfig(spec, specs));
    const node: ClusterNode = {
      spec,
      running: undefined,
      start: async () => {
        node.running = await startLocalNats({ storeDir: spec.storeDir, port: spec.port, config });
      },
      kill: async () => {
        const child = node.running?.process;
        node.running = undefined;
        if (!child || child.exitCode !== null) return;
        // The server itself (a child of its watchdog shell), then the shell.
        await new Promise<void>((resolve) => {
          child.once("exit", () => resolve());
          for (const pid of childrenOf(child.pid ?? 0)) {
            if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "nats-server") process.kill(pid, "SIGKILL");
          }
          child.kill("SIGKILL");
        });
      },
    };
    return node;
  });
  const started = await Promise.allSettled(nodes.map((n) => n.start()));
  const failed = started.find((r) => r.status === "rejected");
  if (failed) {
    await Promise.all(nodes.map((n) => n.running?.stop()));
    dir.remove();
    throw failed.reason;
  }
  await jetStreamReady(clusterUrl(specs));
  return {
    url: clusterUrl(specs),
    nodes,
    leaderOf: (nc, stream) =>
      waitFor(
        `a leader of ${stream}`,
        async () => {
          try {
            const info = await (await jetstreamManager(nc, { timeout: 10_000 })).streams.info(stream);
            return nodes.find((n) => n.spec.name === info.cluster?.leader);
          } catch {
            return undefined;
          }
        },
        30_000,
        250,
      ),
    stop: async () => {
      await Promise.all(nodes.map((n) => n.running?.stop()));
      dir.remove();
    },
  };
};
