import { Type } from "typebox";
import {
  RecordEmploymentEventInput,
  recordEmploymentEvent,
  setWorkforceAuthorization,
} from "../../core/workforce/mod.ts";
import { adminProcedure, router } from "./context.ts";
import { standard } from "./standard_schema.ts";

const AuthorizeInput = Type.Object(
  { organization_id: Type.String({ format: "uuid", pattern: "^[0-9a-fA-F-]{36}$" }), authorized: Type.Boolean() },
  { additionalProperties: false },
);

/** The workforce module's side of the event record: authorization and employment events (spec §6.4). */
export const workforceRouter = router({
  /** Grants or withdraws the organization's workforce authorization (full or reduced employment details). */
  authorize: adminProcedure
    .input(standard(AuthorizeInput))
    .mutation(({ ctx, input }) =>
      setWorkforceAuthorization(ctx.deps.workforce, input.organization_id, input.authorized),
    ),
  /** Records one employment.* event; it is listed and delivered like every other event. */
  recordEvent: adminProcedure
    .input(standard(RecordEmploymentEventInput))
    .mutation(({ ctx, input }) =>
      recordEmploymentEvent(
        ctx.deps.workforce,
        { now: ctx.deps.clock(), newEventId: ctx.deps.badges.newEventId },
        input,
      ),
    ),
});
