import {
  type EndorsementStore,
  type EndorsementTarget,
  type EndorsementView,
  endorsementCredentialPayload,
} from "../../core/endorsements/mod.ts";

interface Signer {
  sign(payload: Record<string, unknown>): Promise<string>;
}

/**
 * Accepted endorsements as signed `EndorsementCredential`s (VC-JWTs, with the key the other
 * credentials use): one alone for its own address, and all of a target's for embedding in the
 * achievement or profile they endorse. Signed on each render, like the other credentials, so a
 * new server key signs them too; the hosted-record cache keeps the result.
 */
export const endorsementCredentials = (deps: {
  store: EndorsementStore;
  credentials: Signer;
  urls: { obiBase: string; v3Base: string };
}) => {
  const sign = (e: EndorsementView): Promise<string> | null =>
    e.state === "accepted" && e.accepted_at
      ? deps.credentials.sign({ ...endorsementCredentialPayload({ ...e, accepted_at: e.accepted_at }, deps.urls) })
      : null;
  return {
    sign,
    /** The compact JWS of each accepted endorsement of the target, oldest first. */
    async of(kind: EndorsementTarget, targetId: string): Promise<string[]> {
      const accepted = await deps.store.accepted(kind, targetId);
      return Promise.all(accepted.map((e) => sign(e) ?? Promise.resolve(""))).then((all) =>
        all.filter((j) => j !== ""),
      );
    },
  };
};
export type EndorsementCredentials = ReturnType<typeof endorsementCredentials>;
