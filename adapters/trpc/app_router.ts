import { router } from "./context.ts";
import { earnerBadgesRouter, usersRouter } from "./earners_router.ts";
import { membersRouter } from "./members_router.ts";
import { organizationsRouter } from "./organizations_router.ts";
import { issuerAuthorizationsRouter, pathwaysRouter } from "./pathways_router.ts";
import { platformsRouter } from "./platforms_router.ts";
import { recommendationsRouter } from "./recommendations_router.ts";
import { oauthApplicationsRouter, webhooksRouter } from "./webhooks_router.ts";
import { workforceRouter } from "./workforce_router.ts";

/** All internal procedures; internal tools import `AppRouter` for their client types. */
export const appRouter = router({
  organizations: organizationsRouter,
  members: membersRouter,
  users: usersRouter,
  badges: earnerBadgesRouter,
  webhooks: webhooksRouter,
  oauthApplications: oauthApplicationsRouter,
  workforce: workforceRouter,
  platforms: platformsRouter,
  recommendations: recommendationsRouter,
  pathways: pathwaysRouter,
  issuerAuthorizations: issuerAuthorizationsRouter,
});

export type AppRouter = typeof appRouter;
