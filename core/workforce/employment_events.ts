import { notFound } from "../errors/mod.ts";

/** The organization's workforce authorization: read when details are built, set by operators. */
export interface WorkforceAuthorizationStore {
  /** null when the organization does not exist. */
  get(organizationId: string): Promise<boolean | null>;
  /** false when the organization does not exist. */
  set(organizationId: string, authorized: boolean): Promise<boolean>;
}

export interface WorkforceDeps {
  authorization: WorkforceAuthorizationStore;
}

/** Grants or withdraws workforce authorization; later reads of employment events follow it. */
export const setWorkforceAuthorization = async (
  deps: Pick<WorkforceDeps, "authorization">,
  organizationId: string,
  authorized: boolean,
): Promise<{ organization_id: string; workforce_authorized: boolean }> => {
  const id = organizationId.toLowerCase();
  if (!(await deps.authorization.set(id, authorized))) throw notFound("Organization");
  return { organization_id: id, workforce_authorized: authorized };
};
