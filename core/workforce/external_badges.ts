import { type Static, Type } from "typebox";
import type { Page } from "../credentials/mod.ts";
import { CoreError, notFound, orNotFound, validationFailed } from "../errors/mod.ts";
import { type EventRecord, employmentEvent } from "../events/mod.ts";
import { isoMillis, type PageRequest } from "../shared/mod.ts";
import { employerSeesBadges, visibleBadges } from "./connection.ts";
import { type ConnectionTx, heldShapes } from "./connections.ts";
import { type EmployeeRecord, type Employer, employmentShape } from "./employee_records.ts";
import { type EmployeeContext, workforceDataRefused } from "./employees.ts";
import {
  DATA_INTEGRITY_PROOF,
  EXTERNAL_BADGE_REASONS,
  EXTERNAL_BADGE_SOURCES,
  EXTERNAL_BADGE_STATUSES,
  type ExternalBadgeDetails,
  type ExternalBadgeInput,
  type ExternalBadgeReason,
  type ExternalBadgeSource,
  type ExternalBadgeStatus,
  httpUrl,
  proofOf,
  type Verification,
  type VerifyDeps,
  verifyExternalBadge,
} from "./external_verification.ts";

/**
 * Badges from other issuers that an earner adds to their account. The employers the earner is
 * connected to see them (as they see the earner's accepted public badges), each with whether
 * Laurel could verify it; every badge is verified again once a day, and a change of status is
 * told to those employers.
 */
export interface ExternalBadgeRecord {
  id: string;
  user_id: string;
  source: ExternalBadgeSource;
  /** The assertion's address (OB 2.0); null for a pasted credential. */
  url: string | null;
  /**
   * The credential (OB 3.0) as pasted or delivered: a VC-JWT, or the JSON of a credential with a
   * Data Integrity proof (it starts with `{`); null for an assertion address.
   */
  credential: string | null;
  /** What makes two entries of one account the same badge: the address, or the credential's id. */
  source_key: string;
  details: ExternalBadgeDetails;
  verification_status: ExternalBadgeStatus;
  verification_reason: ExternalBadgeReason | null;
  verified_at: Date;
  next_verification_at: Date;
  created_at: Date;
}

/** How often each external badge is verified again. */
export const REVERIFY_INTERVAL_MS = 86_400_000;
/** External badges one account may hold: enough for a career, few enough that a page shows them. */
export const MAX_EXTERNAL_BADGES = 100;
/** A pasted credential longer than this is not a badge (Laurel's own are ~2 KB). */
export const MAX_CREDENTIAL_LENGTH = 12_000;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/**
 * The external badge object of the REST listing and of `employment.external_badges.*` details.
 * The issuer Laurel vouches for is `issuer_origin` alone; the `claimed_` fields are what the
 * badge says of itself and are labelled so wherever they are shown.
 */
export const ExternalBadgeSchema = Type.Object({
  id: Type.String({ format: "uuid" }),
  source: Type.Enum(EXTERNAL_BADGE_SOURCES),
  url: Nullable(Type.String()),
  name: Type.String(),
  description: Type.String(),
  image_url: Nullable(Type.String()),
  criteria_url: Nullable(Type.String()),
  issuer_origin: Nullable(
    Type.String({
      description:
        "The issuer's verified identity: the origin of its id, where its hosted profile or signing key was found. Null unless `verification_status` is `validated`.",
    }),
  ),
  claimed_issuer_name: Type.String({
    description: "The issuer's name as the badge states it; not verified by Laurel.",
  }),
  claimed_issuer_url: Nullable(
    Type.String({
      description:
        "The issuer's web address as the badge states it; not verified by Laurel (on `issuer_origin` when validated).",
    }),
  ),
  issued_at: Nullable(Type.String({ format: "date-time" })),
  expires_at: Nullable(Type.String({ format: "date-time" })),
  verification_status: Type.Enum(EXTERNAL_BADGE_STATUSES),
  verification_reason: Nullable(Type.Enum(EXTERNAL_BADGE_REASONS)),
  verified_at: Type.String({ format: "date-time" }),
  added_at: Type.String({ format: "date-time" }),
});
export type ExternalBadgeJson = Static<typeof ExternalBadgeSchema>;

const iso = (d: Date | null): string | null => (d ? isoMillis(d) : null);

export const externalBadgeShape = (r: ExternalBadgeRecord): ExternalBadgeJson => ({
  id: r.id,
  source: r.source,
  url: r.url ?? httpUrl(r.details.credential_id),
  name: r.details.name,
  description: r.details.description,
  image_url: r.details.image_url,
  criteria_url: r.details.criteria_url,
  issuer_origin: r.verification_status === "validated" ? r.details.issuer_origin : null,
  claimed_issuer_name: r.details.issuer_name,
  claimed_issuer_url: r.details.issuer_url,
  issued_at: iso(r.details.issued_at),
  expires_at: iso(r.details.expires_at),
  verification_status: r.verification_status,
  verification_reason: r.verification_reason,
  verified_at: isoMillis(r.verified_at),
  added_at: isoMillis(r.created_at),
});

/** Reads and writes of one transaction; the connection reads tell which employers to inform. */
export interface ExternalBadgeTx
  extends Pick<ConnectionTx, "lockForAccount" | "employers" | "heldBadges" | "appendEvents"> {
  countForUser(userId: string): Promise<number>;
  /** `duplicate` when the account holds one with the same `source_key`. */
  insert(record: ExternalBadgeRecord): Promise<"inserted" | "duplicate">;
  lock(id: string): Promise<ExternalBadgeRecord | null>;
  delete(id: string): Promise<void>;
  /** Writes the verification fields and details. */
  saveVerification(record: ExternalBadgeRecord): Promise<void>;
}

/** A badge due for verification, with its owner's confirmed addresses. */
export interface DueExternalBadge {
  record: ExternalBadgeRecord;
  emails: string[];
}

export interface ExternalBadgeStore {
  transaction<T>(work: (tx: ExternalBadgeTx) => Promise<T>): Promise<T>;
  /** The account's external badges, newest first. */
  listForUser(userId: string): Promise<ExternalBadgeRecord[]>;
  pageForUser(userId: string, page: PageRequest): Promise<Page<ExternalBadgeRecord>>;
  /**
   * Up to `limit` badges of open accounts due at `now`, their next check moved to `leaseUntil` so
   * that no other worker takes them while this one verifies (one that dies leaves them for later).
   */
  claimDue(now: Date, limit: number, leaseUntil: Date): Promise<DueExternalBadge[]>;
}

/**
 * How many verifications an earner may start in an hour (adding a badge, "check again"), and how
 * many all earners together may send to one host: each is a few requests Laurel makes to a host
 * the earner chose, so without a ceiling anyone with an account could make it hammer any site.
 */
export interface ExternalFetchLimits {
  perAccountPerHour: number;
  perHostPerHour: number;
}

/** A fixed-window counter every process shares. */
export interface ExternalFetchCounter {
  hit(key: string, windowMs: number): Promise<{ hits: number; ttlMs: number }>;
}

export interface ExternalBadgeDeps {
  store: ExternalBadgeStore;
  verify: VerifyDeps;
  /** The earner-started verifications' budget; absent: unlimited (the daily re-verification). */
  budget?: { counter: ExternalFetchCounter; limits: ExternalFetchLimits };
}

const HOUR = 3_600_000;

/**
 * An employee change's context without its audit actor: an earner's own badges change employment
 * histories the way an employee change does, but no organization made the change.
 */
export type ExternalBadgeContext = Omit<EmployeeContext, "by">;

/** The earner whose badges these are, with the addresses a recipient may match. */
export interface ExternalBadgeOwner {
  userId: string;
  /** Confirmed addresses only: an unconfirmed one proves nothing about who holds the badge. */
  confirmedEmails: string[];
}

const JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const notJsonCredential = (message: string): CoreError =>
  validationFailed(`That is not an Open Badges 3.0 credential Laurel can verify: ${message}`, [
    { field: "credential", message },
  ]);

/**
 * A credential given as JSON, read: it must carry the one proof Laurel checks and name only the
 * JSON-LD contexts the check loads, since any other context could change what was signed. What
 * fails here is refused before anything is fetched or stored.
 */
const readJsonCredential = (
  verify: Pick<VerifyDeps, "dataIntegrity" | "sha256Hex">,
  credential: string,
): { input: ExternalBadgeInput; sourceKey: string } => {
  let doc: unknown;
  try {
    doc = JSON.parse(credential);
  } catch {
    doc = null;
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) {
    throw notJsonCredential("the JSON is not an object");
  }
  const json = doc as Record<string, unknown>;
  const text = JSON.stringify(json);
  if (text.length > MAX_CREDENTIAL_LENGTH) {
    throw notJsonCredential(`a credential has at most ${MAX_CREDENTIAL_LENGTH.toLocaleString("en")} characters`);
  }
  const check = verify.dataIntegrity;
  if (!check) throw notJsonCredential("send it as a compact JWS (VC-JWT)");
  if (json.proof === undefined) {
    throw notJsonCredential(
      `it carries no proof: a JSON credential needs an embedded ${DATA_INTEGRITY_PROOF.type} (${DATA_INTEGRITY_PROOF.cryptosuite}); send a VC-JWT as text otherwise`,
    );
  }
  const proof = proofOf(json);
  if (!proof) throw notJsonCredential("it must carry exactly one proof");
  if (proof.type !== DATA_INTEGRITY_PROOF.type || proof.cryptosuite !== DATA_INTEGRITY_PROOF.cryptosuite) {
    throw notJsonCredential(
      `its proof is ${String(proof.type)} (${String(proof.cryptosuite)}); Laurel verifies ${DATA_INTEGRITY_PROOF.type} with the ${DATA_INTEGRITY_PROOF.cryptosuite} cryptosuite`,
    );
  }
  const method = typeof proof.verificationMethod === "string" ? proof.verificationMethod : "";
  if (!/^did:key:z[^#]+#.+$/.test(method) && !/^https:\/\/[^\s]+$/.test(method)) {
    throw notJsonCredential("its verification method must be a did:key key or an https address");
  }
  const contexts = Array.isArray(json["@context"]) ? json["@context"] : [json["@context"]];
  const unknown = contexts.find((c) => typeof c !== "string" || !check.contexts.includes(c));
  if (unknown !== undefined) {
    throw notJsonCredential(
      `it names the JSON-LD context ${typeof unknown === "string" ? unknown : "given inline"}; Laurel reads only ${check.contexts.join(", ")}`,
    );
  }
  const id = typeof json.id === "string" && json.id !== "" ? json.id : null;
  return { input: { source: "open_badges_v3", json, text }, sourceKey: id ?? `sha256:${verify.sha256Hex(text)}` };
};

/**
 * What the earner's form holds, read: an assertion address or a pasted credential, not both. A
 * credential is a VC-JWT, or JSON with a Data Integrity proof. Field errors name the form's fields
 * (`url`, `credential`).
 */
export const readExternalBadgeInput = (
  verify: Pick<VerifyDeps, "jws" | "sha256Hex" | "dataIntegrity">,
  form: { url?: string; credential?: string },
): { input: ExternalBadgeInput; sourceKey: string } => {
  const url = form.url?.trim() ?? "";
  // JSON keeps its spaces (they are inside its strings); a VC-JWT has none, so a wrapped paste joins.
  if (url === "" && form.credential?.trim().startsWith("{")) return readJsonCredential(verify, form.credential);
  const credential = form.credential?.replace(/\s+/g, "") ?? "";
  if ((url === "") === (credential === "")) {
    throw validationFailed("Give the badge's address or paste its credential", [
      { field: url ? "credential" : "url", message: "give one of url and credential" },
    ]);
  }
  if (url) {
    if (!httpUrl(url)) {
      throw validationFailed("That is not a web address of a badge", [
        { field: "url", message: "must be an http or https address of at most 2048 characters" },
      ]);
    }
    return { input: { source: "open_badges_v2", url }, sourceKey: url };
  }
  const decoded =
    credential.length <= MAX_CREDENTIAL_LENGTH && JWS.test(credential) ? verify.jws.decode(credential) : null;
  if (!decoded) {
    throw validationFailed("That is not an Open Badges 3.0 credential (VC-JWT)", [
      { field: "credential", message: "must be a compact JWT of at most 12,000 characters" },
    ]);
  }
  const vc = (
    typeof decoded.payload.vc === "object" && decoded.payload.vc !== null ? decoded.payload.vc : decoded.payload
  ) as {
    id?: unknown;
  };
  const id =
    typeof vc.id === "string" && vc.id !== ""
      ? vc.id
      : typeof decoded.payload.jti === "string"
        ? decoded.payload.jti
        : null;
  return {
    input: { source: "open_badges_v3", jwt: credential },
    sourceKey: id ?? `sha256:${verify.sha256Hex(credential)}`,
  };
};

const hostOf = (url: string): string => /^https?:\/\/([^/?#]+)/i.exec(url)?.[1] ?? url;

/** The host name of an http(s) address, lowercased, without user info or port; null for anything else. */
const hostNameOf = (url: string | null): string | null => {
  const m = url ? /^https?:\/\/(?:[^/?#@]*@)?(\[[^\]/?#]*\]|[^:/?#]+)/i.exec(url) : null;
  return m ? (m[1] as string).toLowerCase() : null;
};

/**
 * The host a verification fetches first: the assertion's (OB 2.0) or the signing key's (OB 3.0,
 * whose other fetches stay on that origin or are refused); null when nothing will be fetched.
 */
export const fetchHostOf = (jws: Pick<VerifyDeps["jws"], "decode">, input: ExternalBadgeInput): string | null => {
  if (input.source === "open_badges_v2") return hostNameOf(input.url);
  if ("json" in input) {
    const method = proofOf(input.json)?.verificationMethod;
    return hostNameOf(httpUrl(method));
  }
  return hostNameOf(httpUrl(jws.decode(input.jwt)?.header.kid));
};

const rateLimited = (message: string, ttlMs: number): CoreError =>
  new CoreError("rate_limited", `${message}; try again in ${Math.max(1, Math.ceil(ttlMs / 60_000))} minutes`);

/**
 * Counts one verification started by `userId` that will fetch from `host`, and refuses it when the
 * account or the host has spent its hour's budget. Nothing is fetched before this passes.
 */
const takeFetchBudget = async (deps: ExternalBadgeDeps, userId: string, input: ExternalBadgeInput): Promise<void> => {
  if (!deps.budget) return;
  const { counter, limits } = deps.budget;
  const mine = await counter.hit(`external-fetch:account:${userId}`, HOUR);
  if (mine.hits > limits.perAccountPerHour) {
    throw rateLimited(
      `You have had ${limits.perAccountPerHour} badges from other issuers checked in the last hour, the most an account may`,
      mine.ttlMs,
    );
  }
  const host = fetchHostOf(deps.verify.jws, input);
  if (host === null) return;
  const theirs = await counter.hit(`external-fetch:host:${host}`, HOUR);
  if (theirs.hits > limits.perHostPerHour) {
    throw rateLimited(`Laurel has checked as many badges at ${host} as it may this hour`, theirs.ttlMs);
  }
};

/** What is shown of a badge nothing could be read of yet: where it came from. */
const placeholder = (input: ExternalBadgeInput): ExternalBadgeDetails => ({
  name: input.source === "open_badges_v2" ? `Badge at ${hostOf(input.url)}` : "Open Badges 3.0 credential",
  description: "",
  image_url: null,
  criteria_url: null,
  issuer_name: "Unknown issuer",
  issuer_url: null,
  issuer_origin: null,
  issued_at: null,
  expires_at: null,
  credential_id: null,
});

/**
 * Each employer connected to the account (an accepted connection) records `kind` with its
 * employment, as it sees it now, and the external badge.
 */
const tellEmployers = async (
  tx: ExternalBadgeTx,
  ctx: ExternalBadgeContext,
  userId: string,
  kind:
    | "employment.external_badges.added"
    | "employment.external_badges.removed"
    | "employment.external_badges.verification_status_changed",
  badge: ExternalBadgeRecord,
): Promise<void> => {
  const records = (await tx.lockForAccount(userId, [])).filter(
    (r): r is EmployeeRecord => r.user_id === userId && employerSeesBadges(r),
  );
  if (records.length === 0) return;
  const employers = new Map(
    (await tx.employers([...new Set(records.map((r) => r.organization_id))])).map((e) => [e.id, e] as const),
  );
  const shapes = heldShapes(await tx.heldBadges(userId), ctx.urls);
  const json = externalBadgeShape(badge);
  const events: EventRecord[] = records.map((record) =>
    employmentEvent(
      kind,
      employmentShape(record, employers.get(record.organization_id) as Employer, visibleBadges(record, shapes)),
      { id: ctx.newEventId(), organization_id: record.organization_id, occurred_at: ctx.now },
      json,
    ),
  );
  await tx.appendEvents(events);
};

const tooMany = (field: string): CoreError =>
  validationFailed(`An account holds at most ${MAX_EXTERNAL_BADGES} badges from other issuers`, [
    { field, message: "remove one first" },
  ]);
const alreadyAdded = (field: string): CoreError =>
  validationFailed("You have already added this badge", [{ field, message: "already added" }]);

/**
 * The earner adds a badge from another issuer: it is verified first (outside any transaction:
 * the fetches may take seconds, and may even reach this same service), then stored with its
 * status, and the connected employers are told.
 */
export const addExternalBadge = async (
  deps: ExternalBadgeDeps,
  ctx: ExternalBadgeContext,
  owner: ExternalBadgeOwner,
  form: { url?: string; credential?: string },
): Promise<ExternalBadgeRecord> => {
  const { input, sourceKey } = readExternalBadgeInput(deps.verify, form);
  const field = input.source === "open_badges_v2" ? "url" : "credential";
  // What can be refused without fetching is refused first: nothing is fetched for it. The
  // transaction below checks both again, for a concurrent addition.
  const held = await deps.store.listForUser(owner.userId);
  if (held.length >= MAX_EXTERNAL_BADGES) throw tooMany(field);
  if (held.some((r) => r.source_key === sourceKey)) throw alreadyAdded(field);
  await takeFetchBudget(deps, owner.userId, input);
  const verification = await verifyExternalBadge(deps.verify, input, owner.confirmedEmails, ctx.now);
  const record: ExternalBadgeRecord = {
    id: ctx.newId(),
    user_id: owner.userId,
    source: input.source,
    url: input.source === "open_badges_v2" ? input.url : null,
    credential: input.source === "open_badges_v2" ? null : "jwt" in input ? input.jwt : input.text,
    source_key: sourceKey,
    details: verification.details ?? placeholder(input),
    verification_status: verification.status,
    verification_reason: verification.reason,
    verified_at: ctx.now,
    next_verification_at: new Date(ctx.now.getTime() + REVERIFY_INTERVAL_MS),
    created_at: ctx.now,
  };
  return deps.store.transaction(async (tx) => {
    if ((await tx.countForUser(owner.userId)) >= MAX_EXTERNAL_BADGES) throw tooMany(field);
    if ((await tx.insert(record)) === "duplicate") throw alreadyAdded(field);
    await tellEmployers(tx, ctx, owner.userId, "employment.external_badges.added", record);
    return record;
  });
};

/** The earner removes one of their external badges; connected employers are told. */
export const removeExternalBadge = (
  store: ExternalBadgeStore,
  ctx: ExternalBadgeContext,
  userId: string,
  id: string,
): Promise<void> =>
  store.transaction(async (tx) => {
    const record = await tx.lock(id);
    if (!record || record.user_id !== userId) throw notFound("External badge");
    await tx.delete(id);
    await tellEmployers(tx, ctx, userId, "employment.external_badges.removed", record);
  });

/**
 * Stores a verification made at `ctx.now` of the badge `id`, unless it was removed meanwhile.
 * A change of status is told to the connected employers. Returns the badge as stored.
 */
export const recordVerification = (
  store: ExternalBadgeStore,
  ctx: ExternalBadgeContext,
  id: string,
  verification: Verification,
): Promise<ExternalBadgeRecord | null> =>
  store.transaction(async (tx) => {
    const record = await tx.lock(id);
    if (!record) return null;
    const next: ExternalBadgeRecord = {
      ...record,
      details: verification.details ?? record.details,
      verification_status: verification.status,
      verification_reason: verification.reason,
      verified_at: ctx.now,
      next_verification_at: new Date(ctx.now.getTime() + REVERIFY_INTERVAL_MS),
    };
    await tx.saveVerification(next);
    if (next.verification_status !== record.verification_status) {
      await tellEmployers(tx, ctx, record.user_id, "employment.external_badges.verification_status_changed", next);
    }
    return next;
  });

const inputOf = (r: ExternalBadgeRecord): ExternalBadgeInput => {
  if (r.source === "open_badges_v2") return { source: "open_badges_v2", url: r.url as string };
  const credential = r.credential as string;
  return credential.startsWith("{")
    ? { source: "open_badges_v3", json: JSON.parse(credential) as Record<string, unknown>, text: credential }
    : { source: "open_badges_v3", jwt: credential };
};

/** The earner asks for one of their badges to be checked again now. */
export const recheckExternalBadge = async (
  deps: ExternalBadgeDeps,
  ctx: ExternalBadgeContext,
  owner: ExternalBadgeOwner,
  id: string,
): Promise<ExternalBadgeRecord> => {
  const record = orNotFound(
    (await deps.store.listForUser(owner.userId)).find((r) => r.id === id),
    "External badge",
  );
  await takeFetchBudget(deps, owner.userId, inputOf(record));
  const verification = await verifyExternalBadge(deps.verify, inputOf(record), owner.confirmedEmails, ctx.now);
  return orNotFound(await recordVerification(deps.store, ctx, id, verification), "External badge");
};

/**
 * One round of the daily re-verification: claims the badges due, verifies them a few at a time,
 * records each result. Returns how many were verified (a full batch means more may be due).
 */
export const reverifyDue = async (
  deps: ExternalBadgeDeps,
  ctx: ExternalBadgeContext,
  options: { batch: number; leaseMs: number; concurrency: number },
): Promise<number> => {
  const due = await deps.store.claimDue(ctx.now, options.batch, new Date(ctx.now.getTime() + options.leaseMs));
  let next = 0;
  // One badge that cannot be recorded (the database away) does not stop the others of the round;
  // the round then fails with the first error, and the unrecorded ones come back after their lease.
  let failed: { err: unknown } | null = null;
  const work = async (): Promise<void> => {
    while (next < due.length) {
      const { record, emails } = due[next++] as DueExternalBadge;
      try {
        const verification = await verifyExternalBadge(deps.verify, inputOf(record), emails, ctx.now);
        await recordVerification(deps.store, ctx, record.id, verification);
      } catch (err) {
        failed ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, due.length)) }, work));
  if (failed) throw (failed as { err: unknown }).err;
  return due.length;
};

/**
 * An employee's external badges as the employer sees them: those of the connected account, none
 * before the employee accepted the connection. Refused outright (403) to an organization not
 * authorized for workforce data, before anything says whether the employee exists.
 */
export const employeeExternalBadges = async (
  store: Pick<ExternalBadgeStore, "pageForUser">,
  record: EmployeeRecord | null,
  page: PageRequest,
  workforceAuthorized: boolean,
): Promise<Page<ExternalBadgeJson>> => {
  if (!workforceAuthorized) throw workforceDataRefused();
  if (!record) throw notFound("Employee");
  if (!employerSeesBadges(record)) return { items: [], total: 0 };
  const found = await store.pageForUser(record.user_id as string, page);
  return { items: found.items.map(externalBadgeShape), total: found.total };
};
