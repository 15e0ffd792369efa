import { Type } from "typebox";
import { notFound } from "../../core/errors/mod.ts";
import { platformListing, removePlatform } from "../../core/ob_api/mod.ts";
import { adminProcedure, router } from "./context.ts";
import { standard } from "./standard_schema.ts";

const ClientId = Type.Object(
  { client_id: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

/** Platforms registered through the Open Badges API: the operator lists and removes them. */
export const platformsRouter = router({
  list: adminProcedure.query(async ({ ctx }) => {
    const store = ctx.deps.obApi?.platforms;
    return store ? (await store.list()).map(platformListing) : [];
  }),
  remove: adminProcedure.input(standard(ClientId)).mutation(async ({ ctx, input }) => {
    const store = ctx.deps.obApi?.platforms;
    if (!store) throw notFound("Platform");
    await removePlatform(store, input.client_id);
    return { removed: input.client_id };
  }),
});
