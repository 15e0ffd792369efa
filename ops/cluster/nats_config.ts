/** One node of a JetStream cluster: its client and route ports, and where it stores streams. */
export interface NatsNodeSpec {
  name: string;
  host: string;
  port: number;
  clusterPort: number;
  /** HTTP monitoring (`/healthz`, `/jsz`); 0 for none. */
  monitorPort: number;
  storeDir: string;
}

/**
 * The nats-server configuration of `node` in a cluster of `nodes` (2.9 syntax): JetStream on, the
 * same cluster name everywhere, a route to every other node. A real deployment uses the same file
 * with host names instead of 127.0.0.1 (docs/operations.md).
 */
export const natsNodeConfig = (node: NatsNodeSpec, nodes: readonly NatsNodeSpec[], clusterName = "laurel"): string => {
  const routes = nodes.filter((n) => n.name !== node.name).map((n) => `    nats-route://${n.host}:${n.clusterPort}`);
  return [
    `server_name: ${node.name}`,
    `listen: ${node.host}:${node.port}`,
    ...(node.monitorPort ? [`http: ${node.host}:${node.monitorPort}`] : []),
    "jetstream {",
    `  store_dir: "${node.storeDir}"`,
    "}",
    "cluster {",
    `  name: ${clusterName}`,
    `  listen: ${node.host}:${node.clusterPort}`,
    "  routes: [",
    ...routes,
    "  ]",
    "}",
    "",
  ].join("\n");
};

/** The client URL of every node, comma-separated, as NATS_URL takes it. */
export const clusterUrl = (nodes: readonly NatsNodeSpec[]): string =>
  nodes.map((n) => `nats://${n.host}:${n.port}`).join(",");
