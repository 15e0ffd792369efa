import type { Flags } from "../auth/mod.ts";

/** A member's role in an organization, strongest first. */
export const ROLES = ["owner", "admin", "issuer", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: unknown): value is Role => typeof value === "string" && ROLES.some((r) => r === value);

/** Everything a member can do in the console or over the API, each decided by the one table below. */
export const MEMBER_ACTIONS = [
  "members.read",
  "members.invite",
  "members.change_role",
  "members.remove",
  /** Making someone owner, changing an owner's role, removing an owner. */
  "ownership.change",
  "profile.read",
  "profile.update",
  /** The Developers section: OAuth applications, authorization tokens, webhook settings and deliveries. */
  "developers.read",
  "developers.write",
  "audit.read",
  "templates.read",
  "templates.write",
  "badges.read",
  "badges.issue",
  "badges.revoke",
  "badges.replace",
  "badges.delete",
  "employees.read",
  "employees.write",
] as const;
export type MemberAction = (typeof MEMBER_ACTIONS)[number];

const ALL: Record<MemberAction, boolean> = Object.fromEntries(MEMBER_ACTIONS.map((a) => [a, true])) as Record<
  MemberAction,
  boolean
>;
const NONE: Record<MemberAction, boolean> = Object.fromEntries(MEMBER_ACTIONS.map((a) => [a, false])) as Record<
  MemberAction,
  boolean
>;

/**
 * Role × action: the only place that says what a role may do. An issuer and a viewer see nothing
 * of the Developers section (its pages reveal credentials and webhook secrets) nor the audit log.
 */
export const PERMISSIONS = {
  owner: ALL,
  admin: { ...ALL, "ownership.change": false },
  issuer: {
    ...NONE,
    "members.read": true,
    "profile.read": true,
    "templates.read": true,
    "badges.read": true,
    "badges.issue": true,
    "badges.revoke": true,
    "badges.replace": true,
    "employees.read": true,
  },
  viewer: {
    ...NONE,
    "members.read": true,
    "profile.read": true,
    "templates.read": true,
    "badges.read": true,
    "employees.read": true,
  },
} as const satisfies Record<Role, Record<MemberAction, boolean>>;

export const allowed = (role: Role, action: MemberAction): boolean => PERMISSIONS[role][action];

/**
 * The most an authorization token made by a member of `role` may hold: a member's token never
 * does more than the member could. Only roles with the Developers section make tokens at all;
 * deleting needs a role that may delete badges.
 */
export const roleCeiling = (role: Role): Flags => ({
  read_enabled: allowed(role, "developers.write"),
  write_enabled: allowed(role, "developers.write"),
  delete_enabled: allowed(role, "developers.write") && allowed(role, "badges.delete"),
});

/** Flags within a role's ceiling: true when every flag asked for is one the role may hold. */
export const withinRoleCeiling = (role: Role, flags: Flags): boolean => {
  const c = roleCeiling(role);
  return (
    (!flags.read_enabled || c.read_enabled) &&
    (!flags.write_enabled || c.write_enabled) &&
    (!flags.delete_enabled || c.delete_enabled)
  );
};
