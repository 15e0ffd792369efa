import { Type } from "typebox";
import { badgeJson } from "../../core/badges/mod.ts";
import {
  type BadgeView,
  createUser,
  earnerDecision,
  type IssuingContext,
  setPrivacy,
  UserCreateInput,
  userJson,
} from "../../core/issuing/mod.ts";
import { adminProcedure, router, type TrpcDeps } from "./context.ts";
import { standard } from "./standard_schema.ts";

/** The earner, when the tool acts for a known account: the badge must be linked to it. */
const BadgeRef = {
  badge_id: Type.String({ format: "uuid" }),
  user_id: Type.Optional(Type.String({ format: "uuid" })),
};
const DecisionInput = Type.Object(BadgeRef, { additionalProperties: false });
const PrivacyInput = Type.Object({ ...BadgeRef, public: Type.Boolean() }, { additionalProperties: false });

const contextOf = (deps: TrpcDeps): IssuingContext => ({
  now: deps.clock(),
  newId: deps.newId,
  newEventId: deps.badges.newEventId,
  newSalt: deps.badges.newSalt,
});

const json = (deps: TrpcDeps, v: BadgeView) =>
  badgeJson(v.badge, v.template, v.issuer, deps.badges.issuing.urls, v.authorizedIssuer);

/** Earner accounts: the earner's side of badges, for internal tools. */
export const usersRouter = router({
  /** Creates an account; badges already sent to its addresses are linked to it. */
  create: adminProcedure.input(standard(UserCreateInput)).mutation(async ({ ctx, input }) => {
    const { user } = await createUser(ctx.deps.badges.issuing, contextOf(ctx.deps), input);
    return userJson(user);
  }),
});

const decide = (decision: "accept" | "reject") =>
  adminProcedure.input(standard(DecisionInput)).mutation(async ({ ctx, input }) => {
    const view = await earnerDecision(
      ctx.deps.badges.issuing,
      contextOf(ctx.deps),
      input.badge_id.toLowerCase(),
      decision,
      input.user_id?.toLowerCase(),
    );
    return json(ctx.deps, view);
  });

/** What the recipient does with a badge: accept or reject it while pending, show or hide it. */
export const earnerBadgesRouter = router({
  accept: decide("accept"),
  reject: decide("reject"),
  privacy: adminProcedure.input(standard(PrivacyInput)).mutation(async ({ ctx, input }) => {
    const view = await setPrivacy(
      ctx.deps.badges.issuing,
      contextOf(ctx.deps),
      input.badge_id.toLowerCase(),
      input.public,
      input.user_id?.toLowerCase(),
    );
    return json(ctx.deps, view);
  }),
});
