import type { Handler } from "./cli.ts";
import { type Options, required, usage } from "./cli_args.ts";

/** Members: the CLI side of the `members` tRPC router. */
export const MEMBER_USAGE = `  members list --organization <id> [--page <n>]
  members invite --organization <id> --email <address> --role <owner|admin|issuer|viewer>
  members remove --organization <id> --membership <id>`;

export const MEMBER_OPTIONS = {
  role: { type: "string" },
  membership: { type: "string" },
} as const;

const ROLES = ["owner", "admin", "issuer", "viewer"] as const;
const roleOf = (o: Options): (typeof ROLES)[number] => {
  const role = required(o, "role", "members invite");
  const found = ROLES.find((r) => r === role);
  return found ?? usage(`--role must be one of ${ROLES.join(", ")}`);
};

export const MEMBER_HANDLERS: Record<string, Handler> = {
  "members list": async (client, o) => {
    const organization_id = required(o, "organization", "members list");
    const page = typeof o.page === "string" ? { page: Number(o.page) } : {};
    const members = await client.members.list.query({ organization_id, ...page });
    const invitations = await client.members.invitations.query({ organization_id });
    const lines = members.data.map(
      (m) =>
        `${m.id}  ${m.role.padEnd(6)}  ${m.user.email ?? "(no address)"}  ${m.user.first_name} ${m.user.last_name}`,
    );
    const pending = invitations.data.map(
      (i) => `${i.id}  ${i.role.padEnd(6)}  ${i.email}  (invited, expires ${i.expires_at})`,
    );
    return {
      json: { members: members.data, invitations: invitations.data },
      text: [...lines, ...pending].join("\n") || "(none)",
    };
  },
  "members invite": async (client, o) => {
    const invitation = await client.members.invite.mutate({
      organization_id: required(o, "organization", "members invite"),
      email: required(o, "email", "members invite"),
      role: roleOf(o),
    });
    return {
      json: invitation,
      text: `Invited ${invitation.email} as ${invitation.role} (expires ${invitation.expires_at}); the link is in the mail.`,
    };
  },
  "members remove": async (client, o) => {
    const result = await client.members.remove.mutate({
      organization_id: required(o, "organization", "members remove"),
      membership_id: required(o, "membership", "members remove"),
    });
    return { json: result, text: `Removed membership ${result.removed}` };
  },
};
