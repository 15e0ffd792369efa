export type { Counter, Histogram, MetricsRegistry } from "./prometheus.ts";
export { metricsRegistry } from "./prometheus.ts";
