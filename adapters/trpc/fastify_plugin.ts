import { createHash, timingSafeEqual } from "node:crypto";
import { fastifyTRPCPlugin } from "@trpc/server/adapters/fastify";
import type { FastifyInstance } from "fastify";
import { appRouter } from "./app_router.ts";
import { createContextInner, type TrpcDeps } from "./context.ts";

const sha256 = (s: string): Buffer => createHash("sha256").update(s).digest();

/** Mounts the internal API under `/trpc`; the admin token comes as `Authorization: Bearer <token>`. */
export const trpcPlugin = (deps: TrpcDeps, adminToken: string) => {
  const expected = sha256(adminToken);
  const isAdmin = (header: string | undefined): boolean =>
    !!header && /^bearer /i.test(header) && timingSafeEqual(sha256(header.slice(7).trim()), expected);
  return async (app: FastifyInstance) => {
    // Internal procedures stay out of the public OpenAPI document.
    app.addHook("onRoute", (route) => {
      route.schema = { ...route.schema, hide: true };
    });
    await app.register(fastifyTRPCPlugin, {
      prefix: "/trpc",
      trpcOptions: {
        router: appRouter,
        createContext: ({ req }: { req: { headers: Record<string, string | string[] | undefined> } }) =>
          createContextInner(deps, isAdmin(req.headers.authorization as string | undefined)),
        onError: ({ error, path }: { error: { code: string; message: string }; path?: string }) => {
          if (error.code === "INTERNAL_SERVER_ERROR") app.log.error({ path, err: error }, "tRPC procedure failed");
        },
      },
    });
  };
};
