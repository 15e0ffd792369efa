/**
 * A small Prometheus registry (text format 0.0.4): counters with labels, gauges read at scrape time,
 * and histograms. One registry per process, created by the app and passed down; nothing global.
 */

type Labels = Record<string, string>;

const escapeValue = (v: string): string => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
const labelText = (labels: Labels): string => {
  const keys = Object.keys(labels);
  return keys.length === 0 ? "" : `{${keys.map((k) => `${k}="${escapeValue(labels[k] as string)}"`).join(",")}}`;
};
const key = (labels: Labels): string => JSON.stringify(Object.entries(labels).sort());
const NO_LABELS_KEY = key({});

export interface Counter {
  inc(labels?: Labels, n?: number): void;
  /**
   * `inc` of one series, its labels fixed now: no key is built per call. The series is written
   * from its first increment on, as with `inc`.
   */
  series(labels: Labels): { inc(n?: number): void };
}

export interface Histogram {
  observe(value: number, labels?: Labels): void;
}

export interface MetricsRegistry {
  counter(name: string, help: string): Counter;
  /** Read when scraped; a failing read is left out of that scrape. */
  gauge(
    name: string,
    help: string,
    read: () => Promise<Array<{ labels?: Labels; value: number }>>,
    type?: "gauge" | "counter",
  ): void;
  histogram(name: string, help: string, buckets: readonly number[]): Histogram;
  render(): Promise<string>;
}

export const metricsRegistry = (): MetricsRegistry => {
  const sections: Array<() => Promise<string>> = [];
  return {
    counter(name, help) {
      const values = new Map<string, { labels: Labels; value: number }>();
      sections.push(async () => {
        const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} counter`];
        for (const v of values.values()) lines.push(`${name}${labelText(v.labels)} ${v.value}`);
        return lines.join("\n");
      });
      const inc = (labels: Labels | undefined, n: number): void => {
        const k = labels ? key(labels) : NO_LABELS_KEY;
        const v = values.get(k);
        if (v) v.value += n;
        else values.set(k, { labels: labels ?? {}, value: n });
      };
      return {
        inc(labels, n = 1) {
          inc(labels, n);
        },
        series(labels) {
          const k = key(labels);
          let v: { labels: Labels; value: number } | undefined;
          return {
            inc(n = 1) {
              v ??= values.get(k);
              if (v) v.value += n;
              else {
                v = { labels, value: n };
                values.set(k, v);
              }
            },
          };
        },
      };
    },
    gauge(name, help, read, type = "gauge") {
      sections.push(async () => {
        const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`];
        try {
          for (const v of await read()) lines.push(`${name}${labelText(v.labels ?? {})} ${v.value}`);
        } catch {
          // the source is unavailable right now: no sample this scrape
        }
        return lines.join("\n");
      });
    },
    histogram(name, help, buckets) {
      const series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
      sections.push(async () => {
        const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`];
        for (const s of series.values()) {
          buckets.forEach((b, i) => {
            lines.push(`${name}_bucket${labelText({ ...s.labels, le: String(b) })} ${s.counts[i]}`);
          });
          lines.push(`${name}_bucket${labelText({ ...s.labels, le: "+Inf" })} ${s.count}`);
          lines.push(`${name}_sum${labelText(s.labels)} ${s.sum}`);
          lines.push(`${name}_count${labelText(s.labels)} ${s.count}`);
        }
        return lines.join("\n");
      });
      return {
        observe(value, labels) {
          const k = labels ? key(labels) : NO_LABELS_KEY;
          let s = series.get(k);
          if (!s) {
            s = { labels: labels ?? {}, counts: buckets.map(() => 0), sum: 0, count: 0 };
            series.set(k, s);
          }
          for (let i = 0; i < buckets.length; i++) if (value <= (buckets[i] as number)) (s.counts[i] as number)++;
          s.sum += value;
          s.count++;
        },
      };
    },
    async render() {
      return `${(await Promise.all(sections.map((s) => s()))).join("\n")}\n`;
    },
  };
};
