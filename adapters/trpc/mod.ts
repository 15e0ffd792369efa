export type { AppRouter } from "./app_router.ts";
export { trpcError } from "./context.ts";
export { trpcPlugin } from "./fastify_plugin.ts";
export type { WebhookAdminDeps } from "./webhooks_router.ts";
