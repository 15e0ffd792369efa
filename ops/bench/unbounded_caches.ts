/**
 * Loaded with `--import` by the request limits benchmark into its "limits off" server: every
 * import of `adapters/cache/bounded_cache.ts` gets `map_cache.ts` instead (same interface, plain
 * Maps with the same TTLs, no bounds), leaving the server's own code unchanged.
 */
import { registerHooks } from "node:module";

const boundedCache = new URL("../../adapters/cache/bounded_cache.ts", import.meta.url).href;
const mapCache = new URL("./map_cache.ts", import.meta.url).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    return resolved.url === boundedCache ? { ...resolved, url: mapCache } : resolved;
  },
});
