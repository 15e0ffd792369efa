import { Type } from "typebox";
import { authorizationTokenJson, createInitialAuthorizationToken } from "../../core/credentials/mod.ts";
import { createOrganizationByOperator, invitationJson } from "../../core/members/mod.ts";
import { CreateOrganizationInput, organizationJson } from "../../core/organizations/mod.ts";
import { pageMetadata, pageRequest } from "../../core/shared/mod.ts";
import { adminProcedure, router } from "./context.ts";
import { standard } from "./standard_schema.ts";

const ListInput = Type.Object(
  { page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })) },
  { additionalProperties: false },
);

const CreateInput = Type.Object(
  {
    ...CreateOrganizationInput.properties,
    /** The first owner: an invitation to this address goes out with the organization. */
    owner_email: Type.Optional(Type.String({ format: "email", maxLength: 320 })),
  },
  { additionalProperties: false },
);

export const organizationsRouter = router({
  /** Creates an organization, its first authorization token (read, write and delete) and its first owner's invitation. */
  create: adminProcedure.input(standard(CreateInput)).mutation(async ({ ctx, input }) => {
    const { deps } = ctx;
    const now = deps.clock();
    const { owner_email, ...fields } = input;
    const { organization: org, invitation } = await createOrganizationByOperator(
      deps.members,
      { now, newId: deps.newId },
      fields,
      owner_email ?? null,
    );
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
      owner_invitation: invitation ? invitationJson(invitation) : null,
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
