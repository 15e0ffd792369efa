import { router } from "./context.ts";
import { organizationsRouter } from "./organizations_router.ts";

/** All internal procedures; internal tools import `AppRouter` for their client types. */
export const appRouter = router({
  organizations: organizationsRouter,
});

export type AppRouter = typeof appRouter;
