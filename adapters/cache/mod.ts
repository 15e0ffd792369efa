export type { BoundedCache, BoundedCacheOptions, CacheLimits } from "./bounded_cache.ts";
export { boundedCache, keyBytes } from "./bounded_cache.ts";
