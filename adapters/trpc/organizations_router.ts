import { Type } from "typebox";
import { authorizationTokenJson, createInitialAuthorizationToken } from "../../core/credentials/mod.ts";
import { CreateOrganizationInput, newOrganization, organizationJson } from "../../core/organizations/mod.ts";
import { pageMetadata, pageRequest } from "../../core/shared/mod.ts";
import { adminProcedure, router } from "./context.ts";
import { standard } from "./standard_schema.ts";

const ListInput = Type.Object(
  { page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })) },
  { additionalProperties: false },
);

export const organizationsRouter = router({
  /** Creates an organization and its first authorization token (read, write and delete). */
  create: adminProcedure.input(standard(CreateOrganizationInput)).mutation(async ({ ctx, input }) => {
    const { deps } = ctx;
    const now = deps.clock();
    const org = newOrganization(input, deps.newId(), now);
    await deps.organizations.insert(org);
    const { token, value } = await createInitialAuthorizationToken(
      deps,
      { now, newId: deps.newId },
      org.id,
      "Created with the organization",
    );
    const urls = { api: deps.baseUrl };
    return {
      organization: organizationJson(org, urls),
      authorization_token: authorizationTokenJson(token, value, org, urls),
    };
  }),
  list: adminProcedure.input(standard(ListInput)).query(async ({ ctx, input }) => {
    const req = pageRequest(input.page);
    const page = await ctx.deps.organizations.list(req);
    return {
      data: page.items.map((o) => organizationJson(o, { api: ctx.deps.baseUrl })),
      metadata: pageMetadata(req, page.items.length, page.total, (p) => `?page=${p}`),
    };
  }),
});
