import htm from "htm";
import { h, type VNode } from "preact";
import { renderToString } from "preact-render-to-string";

/**
 * Templates are Preact elements written with `htm` tagged templates: every interpolated value is
 * a child or an attribute value that Preact escapes when rendering, so no page is assembled from
 * strings.
 */
// htm ships an ES module at runtime, but its types are written for CommonJS interop.
type Htm = { bind(hyperscript: typeof h): (strings: TemplateStringsArray, ...values: unknown[]) => VNode };
export const html = (htm as unknown as Htm).bind(h);

export type Node = VNode | string | null | undefined | false | Node[];

export const renderPage = (page: VNode): string => `<!doctype html>${renderToString(page)}`;

/**
 * An address a page may link to: http(s) only. Anything else an issuer or earner typed
 * (`javascript:`, `data:`) is shown as text, never as a link.
 */
export const safeUrl = (value: string | null | undefined): string | undefined => {
  if (!value || !URL.canParse(value)) return undefined;
  const { protocol } = new URL(value);
  return protocol === "https:" || protocol === "http:" ? value : undefined;
};

const DATE = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

export const formatDate = (d: Date): string => DATE.format(d);
