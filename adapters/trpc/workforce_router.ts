import { Type } from "typebox";
import { EMPLOYEE_BATCH_MAX, setWorkforceAuthorization, upsertEmployees } from "../../core/workforce/mod.ts";
import { adminProcedure, router } from "./context.ts";
import { standard } from "./standard_schema.ts";

const AuthorizeInput = Type.Object(
  { organization_id: Type.String({ format: "uuid", pattern: "^[0-9a-fA-F-]{36}$" }), authorized: Type.Boolean() },
  { additionalProperties: false },
);

const ImportInput = Type.Object(
  {
    organization_id: Type.String({ format: "uuid", pattern: "^[0-9a-fA-F-]{36}$" }),
    employees: Type.Array(Type.Unknown(), { minItems: 1, maxItems: EMPLOYEE_BATCH_MAX }),
  },
  { additionalProperties: false },
);

/** The workforce module's side of the event record: authorization and employment events. */
export const workforceRouter = router({
  /** Grants or withdraws the organization's workforce authorization (full or reduced employment details). */
  authorize: adminProcedure
    .input(standard(AuthorizeInput))
    .mutation(({ ctx, input }) =>
      setWorkforceAuthorization(ctx.deps.workforce, input.organization_id, input.authorized),
    ),
  /** One batch of the CLI's `employees import`: the upsert of `POST .../employees/batch`. */
  importEmployees: adminProcedure.input(standard(ImportInput)).mutation(async ({ ctx, input }) => {
    const results = await upsertEmployees(
      ctx.deps.workforce.employees,
      {
        now: ctx.deps.clock(),
        newId: ctx.deps.badges.newEventId,
        newEventId: ctx.deps.badges.newEventId,
        urls: ctx.deps.badges.issuing.urls,
      },
      input.organization_id.toLowerCase(),
      input.employees,
    );
    return results.map((r) =>
      r.status === "failed"
        ? {
            index: r.index,
            status: r.status,
            external_id: r.external_id,
            errors: r.error.errors,
            message: r.error.message,
          }
        : r,
    );
  }),
});
