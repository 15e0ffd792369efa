export { SESSION_COOKIE, webPlugin } from "./plugin.ts";
export type { WebDeps } from "./web_deps.ts";
