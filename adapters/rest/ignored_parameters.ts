import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, RouteOptions } from "fastify";

declare module "fastify" {
  interface FastifyRequest {
    /** Query parameters the route does not know: left out of `query` and of the list grammar. */
    ignoredParameters: ReadonlySet<string> | null;
  }
}

/** The response header naming what was ignored. */
export const IGNORED_PARAMETERS_HEADER = "laurel-ignored-parameters";

/** How much of the ignored names the header repeats: a URL may carry thousands. */
const HEADER_MAX = 1024;

/**
 * The header's value: each name percent-encoded (a name may hold any character a URL can), joined
 * by `, `, cut at a whole name within `HEADER_MAX` with `, ...` after it.
 */
export const ignoredHeaderValue = (names: readonly string[]): string => {
  let value = "";
  for (const name of names) {
    const next = value === "" ? encodeURIComponent(name) : `${value}, ${encodeURIComponent(name)}`;
    if (next.length > HEADER_MAX) return `${value}, ...`;
    value = next;
  }
  return value;
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null;

const queryProperties = (route: RouteOptions): ReadonlySet<string> => {
  const schema = route.schema?.querystring as { properties?: Record<string, unknown> } | undefined;
  return new Set(Object.keys(schema?.properties ?? {}));
};

/**
 * Top-level query parameters a route does not declare are ignored, as services of this kind do
 * (clients send their own: `start_date` to a list that has none, a page size under another name),
 * and named in `Laurel-Ignored-Parameters` so that a misspelling is still visible. A `filter[...]`
 * key is not ignored: it would silently change the result, and the list grammar refuses an
 * unknown one. A parameter repeated with one value is read once. Applied to the routes registered
 * in `app` after this call.
 */
export const ignoreUnknownParameters = (app: FastifyInstance): void => {
  app.decorateRequest("ignoredParameters", null);
  app.addHook("onRoute", (route) => {
    const known = queryProperties(route);
    // A callback hook: it runs on every request of the route.
    const ignore = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      const query = request.query;
      if (!isRecord(query)) return done();
      const ignored: string[] = [];
      for (const name in query) {
        const value = query[name];
        // The same parameter and value twice (a client appending its parameters to a URL that
        // holds them already) is that parameter once; different values stay a conflict.
        if (Array.isArray(value) && value.every((v) => v === value[0])) query[name] = value[0];
        if (known.has(name) || name.startsWith("filter[")) continue;
        ignored.push(name);
        delete query[name];
      }
      if (ignored.length > 0) {
        request.ignoredParameters = new Set(ignored);
        reply.header(IGNORED_PARAMETERS_HEADER, ignoredHeaderValue(ignored));
      }
      done();
    };
    const before = route.preValidation;
    route.preValidation = before === undefined ? [ignore] : [ignore, ...(Array.isArray(before) ? before : [before])];
  });
};
