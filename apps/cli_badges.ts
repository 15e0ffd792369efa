import type { Handler } from "./cli.ts";
import { usage } from "./cli_args.ts";

/** Earners and their badges: the CLI side of the `users` and `badges` tRPC routers. */
export const BADGE_USAGE = `  users create --email <e> --first-name <f> --last-name <l> [--confirmed]
  badges accept --badge <id> [--user <id>]
  badges reject --badge <id> [--user <id>]
  badges privacy --badge <id> --public true|false [--user <id>]`;

export const BADGE_OPTIONS = {
  "first-name": { type: "string" },
  "last-name": { type: "string" },
  confirmed: { type: "boolean" },
  badge: { type: "string" },
  user: { type: "string" },
  public: { type: "string" },
} as const;

/** A usage mistake: reported like the CLI's own, exit code 2. */
const badgeText = (b: {
  id: string;
  state: string;
  public: boolean;
  badge_template: { name: string };
  issued_to: string;
}) =>
  `Badge ${b.id}: "${b.badge_template.name}" issued to ${b.issued_to}, ${b.state}, ${b.public ? "public" : "private"}`;

const badgeRef = (o: Record<string, string | boolean | undefined>, command: string) => {
  if (typeof o.badge !== "string") return usage(`${command} needs --badge <id>`);
  return { badge_id: o.badge, ...(typeof o.user === "string" ? { user_id: o.user } : {}) };
};

export const BADGE_HANDLERS: Record<string, Handler> = {
  "users create": async (client, o) => {
    const email = o.email;
    const first = o["first-name"];
    const last = o["last-name"];
    if (typeof email !== "string" || typeof first !== "string" || typeof last !== "string") {
      return usage("users create needs --email, --first-name and --last-name");
    }
    const user = await client.users.create.mutate({
      email,
      first_name: first,
      last_name: last,
      confirmed: o.confirmed === true,
    });
    const primary = user.emails[0];
    return {
      json: user,
      text: `User ${user.full_name} (${user.id}), ${primary?.email} ${primary?.confirmed ? "confirmed" : "not confirmed"}`,
    };
  },
  "badges accept": async (client, o) => {
    const badge = await client.badges.accept.mutate(badgeRef(o, "badges accept"));
    return { json: badge, text: badgeText(badge) };
  },
  "badges reject": async (client, o) => {
    const badge = await client.badges.reject.mutate(badgeRef(o, "badges reject"));
    return { json: badge, text: badgeText(badge) };
  },
  "badges privacy": async (client, o) => {
    if (o.public !== "true" && o.public !== "false") return usage("badges privacy needs --public true|false");
    const badge = await client.badges.privacy.mutate({ ...badgeRef(o, "badges privacy"), public: o.public === "true" });
    return { json: badge, text: badgeText(badge) };
  },
};
