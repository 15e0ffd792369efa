import { VC_V2_CONTEXT } from "./context.ts";
import { profileUrl } from "./v3_profile.ts";

/**
 * Bitstring Status Lists of OB 3.0 credentials (revocation). An organization's badges are numbered
 * in its lists: index `i` is bit `i % STATUS_LIST_SIZE` of list `floor(i / STATUS_LIST_SIZE)`. The
 * size is the smallest the status-list format allows for herd privacy (16 KiB of bits).
 */
export const STATUS_LIST_SIZE = 131_072;

/** Lists an organization can have: every index fits a 32-bit signed integer. */
export const STATUS_LISTS_MAX = 2 ** 31 / STATUS_LIST_SIZE;

/** The list number of a path segment (`0`, `1`, ... in decimal, no leading zeros), or null. */
export const statusListNumber = (segment: string): number | null => {
  if (!/^(0|[1-9][0-9]{0,4})$/.test(segment)) return null;
  const n = Number(segment);
  return n < STATUS_LISTS_MAX ? n : null;
};

export const statusListUrl = (v3Base: string, organizationId: string, list: number): string =>
  `${v3Base}/status_lists/${organizationId}/${list}`;

export interface StatusListEntry {
  id: string;
  type: "BitstringStatusListEntry";
  statusPurpose: "revocation";
  statusListIndex: string;
  statusListCredential: string;
}

export const statusListEntry = (v3Base: string, organizationId: string, index: number): StatusListEntry => {
  const list = statusListUrl(v3Base, organizationId, Math.floor(index / STATUS_LIST_SIZE));
  const bit = index % STATUS_LIST_SIZE;
  return {
    id: `${list}#${bit}`,
    type: "BitstringStatusListEntry",
    statusPurpose: "revocation",
    statusListIndex: String(bit),
    statusListCredential: list,
  };
};

/**
 * The bits of list `list` with every index of `set` in it set; the first index is the most
 * significant bit of the first byte, as the format reads it.
 */
export const statusListBits = (set: readonly number[], list: number): Uint8Array => {
  const bits = new Uint8Array(STATUS_LIST_SIZE / 8);
  const first = list * STATUS_LIST_SIZE;
  for (const index of set) {
    const bit = index - first;
    if (bit < 0 || bit >= STATUS_LIST_SIZE) continue;
    bits[bit >> 3] = (bits[bit >> 3] ?? 0) | (0x80 >> (bit & 7));
  }
  return bits;
};

/** Where the lists are read: the set indexes of one list, or null when the organization has none that far. */
export interface StatusListStore {
  setIndexes(organizationId: string, list: number): Promise<number[] | null>;
}

export interface StatusListCredentialPayload {
  "@context": [typeof VC_V2_CONTEXT];
  id: string;
  type: ["VerifiableCredential", "BitstringStatusListCredential"];
  issuer: string;
  credentialSubject: {
    id: string;
    type: "BitstringStatusList";
    statusPurpose: "revocation";
    encodedList: string;
  };
  iss: string;
  jti: string;
}

/**
 * The list as a credential of the organization that issued its badges (the issuer id their
 * credentials carry), so a verifier checks both against one issuer. It has no validity dates: its
 * bytes change only when a bit does, which keeps its ETag stable between revocations.
 */
export const statusListCredentialPayload = (
  urls: { obiBase: string; v3Base: string },
  organizationId: string,
  list: number,
  encodedList: string,
): StatusListCredentialPayload => {
  const id = statusListUrl(urls.v3Base, organizationId, list);
  const issuer = profileUrl(urls.v3Base, organizationId);
  return {
    "@context": [VC_V2_CONTEXT],
    id,
    type: ["VerifiableCredential", "BitstringStatusListCredential"],
    issuer,
    credentialSubject: { id: `${id}#list`, type: "BitstringStatusList", statusPurpose: "revocation", encodedList },
    iss: issuer,
    jti: id,
  };
};
