import { type Static, Type } from "typebox";
import { isoMillis, isoMillisOrNull } from "../shared/mod.ts";
import { AUTHORIZATION_STATES, type IssuerAuthorizationView } from "./records.ts";

const Organization = Type.Object({ id: Type.String({ format: "uuid" }), name: Type.String() });

/** An authorization as the REST API shows it to either side (`.../issuers` and `.../grantors`). */
export const IssuerAuthorization = Type.Object(
  {
    id: Type.String({ format: "uuid" }),
    grantor: Organization,
    issuer: Organization,
    state: Type.Enum(AUTHORIZATION_STATES, {
      description: "`pending` (waiting for the issuer), `accepted` (it may issue) or `ended`",
    }),
    all_badge_templates: Type.Boolean({
      description: "Every template of the grantor, those made later included",
    }),
    badge_templates: Type.Array(
      Type.Object({ id: Type.String({ format: "uuid" }), name: Type.String(), state: Type.String() }),
      { description: "The grantor's templates it covers now (all of them when `all_badge_templates`)" },
    ),
    created_at: Type.String({ format: "date-time" }),
    updated_at: Type.String({ format: "date-time" }),
    accepted_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
    ended_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
    ended_by: Type.Union([Type.Literal("grantor"), Type.Literal("issuer"), Type.Null()]),
  },
  { additionalProperties: false },
);
export type IssuerAuthorization = Static<typeof IssuerAuthorization>;

export const issuerAuthorizationJson = (a: IssuerAuthorizationView): IssuerAuthorization => ({
  id: a.id,
  grantor: { id: a.grantor_id, name: a.grantor_name },
  issuer: { id: a.issuer_id, name: a.issuer_name },
  state: a.state,
  all_badge_templates: a.all_templates,
  badge_templates: a.badge_templates.map((t) => ({ id: t.id, name: t.name, state: t.state })),
  created_at: isoMillis(a.created_at),
  updated_at: isoMillis(a.updated_at),
  accepted_at: isoMillisOrNull(a.accepted_at),
  ended_at: isoMillisOrNull(a.ended_at),
  ended_by: a.ended_by,
});
