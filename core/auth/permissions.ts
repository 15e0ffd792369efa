import { forbidden } from "../errors/mod.ts";
import type { Scope } from "./scopes.ts";

/** What a request does to a resource, from its HTTP method. */
export type Action = "read" | "write" | "delete";

export const actionForMethod = (method: string): Action => {
  switch (method.toUpperCase()) {
    case "GET":
    case "HEAD":
      return "read";
    case "DELETE":
      return "delete";
    default:
      return "write";
  }
};

export interface Flags {
  read_enabled: boolean;
  write_enabled: boolean;
  delete_enabled: boolean;
}

/** The caller of an API request, once its credential is verified. */
export type Credential =
  | {
      kind: "oauth";
      organizationId: string;
      applicationId: number;
      clientId: string;
      jti: string;
      scopes: readonly Scope[];
      /** The flags of the application's ceiling: a scope grants only these in its family. */
      ceiling: Flags;
    }
  | ({ kind: "authorization_token"; organizationId: string; tokenId: string } & Flags);

export const ALL_FLAGS: Flags = { read_enabled: true, write_enabled: true, delete_enabled: true };

/**
 * The flags a credential carries. An OAuth token that holds the family's scope may read, write and
 * delete in it (each scope grants all three) as far as its application's ceiling allows;
 * its flags elsewhere are none.
 */
export const flagsOf = (credential: Credential, family: Scope): Flags => {
  if (credential.kind === "authorization_token") {
    return {
      read_enabled: credential.read_enabled,
      write_enabled: credential.write_enabled,
      delete_enabled: credential.delete_enabled,
    };
  }
  return credential.scopes.includes(family)
    ? { ...credential.ceiling }
    : { read_enabled: false, write_enabled: false, delete_enabled: false };
};

const FLAG_FOR_ACTION: Record<Action, keyof Flags> = {
  read: "read_enabled",
  write: "write_enabled",
  delete: "delete_enabled",
};

/**
 * May `credential` do `action` on `family` in organization `organizationId`? A credential of another
 * organization is refused with 403 (thrown), as is a missing scope or flag. `family` null is the
 * organization's own profile, which an access token of any of its scopes may read.
 */
export const authorize = (
  credential: Credential,
  request: { organizationId: string; family: Scope | null; action: Action },
): void => {
  if (credential.organizationId !== request.organizationId) {
    throw forbidden("This credential belongs to another organization", { name: "other_organization" });
  }
  const flag = FLAG_FOR_ACTION[request.action];
  if (credential.kind === "oauth") {
    if (request.family !== null && !credential.scopes.includes(request.family)) {
      throw forbidden(`This access token lacks the ${request.family} scope`, {
        name: "scope_missing",
        scope: request.family,
      });
    }
    if (!credential.ceiling[flag]) {
      throw forbidden(
        `This access token's application was created by a credential that is not ${flag.replace("_", " ")}`,
        { name: "permission_missing", permission: flag },
      );
    }
    return;
  }
  if (!credential[flag])
    throw forbidden(`This authorization token is not ${flag.replace("_", " ")}`, {
      name: "permission_missing",
      permission: flag,
    });
};
