export type { AppRouter } from "./app_router.ts";
export { appRouter } from "./app_router.ts";
export type { TrpcContext, TrpcDeps } from "./context.ts";
export {
  adminProcedure,
  createCallerFactory,
  createContextInner,
  router,
  TRPC_FOR_CODE,
  trpcError,
} from "./context.ts";
export { trpcPlugin } from "./fastify_plugin.ts";
export { standard } from "./standard_schema.ts";
export type { WebhookAdminDeps } from "./webhooks_router.ts";
