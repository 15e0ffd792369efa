import t from "tap";
import { authorize, type Credential } from "../../core/auth/mod.ts";
import { applyTemplateAction, checkIssue } from "../../core/badges/mod.ts";
import { type CoreReason, resultOf } from "../../core/errors/mod.ts";
import { actorMay } from "../../core/members/mod.ts";

/** Each domain refusal names its rule and the data to act on: a client branches on the reason, not the text. */
const reasonOf = (run: () => unknown): CoreReason | undefined => {
  const r = resultOf(run);
  return r.ok ? undefined : r.error.reason;
};

const token = (flags: Partial<Record<"read_enabled" | "write_enabled" | "delete_enabled", boolean>>): Credential => ({
  kind: "authorization_token",
  organizationId: "org-a",
  tokenId: "t",
  read_enabled: true,
  write_enabled: true,
  delete_enabled: true,
  ...flags,
});
const oauth: Credential = {
  kind: "oauth",
  organizationId: "org-a",
  applicationId: 1,
  clientId: "c",
  jti: "j",
  scopes: ["events"],
  ceiling: { read_enabled: true, write_enabled: false, delete_enabled: false },
};

t.test("reasons, rule by rule", async (t) => {
  const table: Array<[string, () => unknown, CoreReason]> = [
    [
      "a second live badge of an exclusive template",
      () => checkIssue({ id: "t1", state: "active", allow_duplicate_badges: false }, true),
      { name: "badge_duplicate", badge_template_id: "t1" },
    ],
    [
      "an archived template",
      () => checkIssue({ id: "t1", state: "archived", allow_duplicate_badges: false }, false),
      { name: "badge_template_not_active", badge_template_id: "t1", state: "archived" },
    ],
    [
      "archiving an archived template",
      () =>
        applyTemplateAction({ state: "archived" } as Parameters<typeof applyTemplateAction>[0], "archive", new Date()),
      { name: "badge_template_transition", state: "archived", action: "archive" },
    ],
    [
      "another organization's credential",
      () => authorize(token({}), { organizationId: "org-b", family: "events", action: "read" }),
      { name: "other_organization" },
    ],
    [
      "an access token without the scope",
      () => authorize(oauth, { organizationId: "org-a", family: "issued_badges", action: "read" }),
      { name: "scope_missing", scope: "issued_badges" },
    ],
    [
      "a token without write",
      () => authorize(token({ write_enabled: false }), { organizationId: "org-a", family: "events", action: "write" }),
      { name: "permission_missing", permission: "write_enabled" },
    ],
    [
      "an application whose ceiling has no write",
      () => authorize(oauth, { organizationId: "org-a", family: "events", action: "write" }),
      { name: "permission_missing", permission: "write_enabled" },
    ],
    [
      "a credential changing owners",
      () => actorMay({ kind: "credential", credential: token({}) }, "org-a", "ownership.change"),
      { name: "ownership_change" },
    ],
  ];
  for (const [label, run, reason] of table) t.same(reasonOf(run), reason, label);
});
