import t from "tap";
import type { AuditRecord } from "../../core/audit/mod.ts";
import {
  changeEndorsement,
  createEndorsement,
  type EndorsementAction,
  type EndorsementDeps,
  type EndorsementRecord,
  type EndorsementState,
  type EndorsementStore,
  type EndorsementView,
  endorsementCredentialPayload,
  endorsementJson,
  getEndorsement,
  LIVE_STATES,
  mayEndorse,
  transition,
} from "../../core/endorsements/mod.ts";
import { type CoreError, isCoreError, resultOf } from "../../core/errors/mod.ts";
import type { EventRecord } from "../../core/events/mod.ts";
import type { OutboxMail } from "../../core/mail/mod.ts";
import type { MemberActor, Role } from "../../core/members/mod.ts";

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";
const C = "00000000-0000-4000-8000-00000000000c";
const TEMPLATE = "00000000-0000-4000-8000-0000000000f1";
const now = new Date("2026-12-07T10:00:00.123Z");

const refusal = (run: () => void): CoreError | null => {
  const result = resultOf(run);
  return result.ok ? null : result.error;
};

const record = (state: EndorsementState): EndorsementRecord => ({
  id: "e1",
  endorser_id: A,
  endorsed_id: B,
  target_kind: "badge_template",
  target_id: TEMPLATE,
  comment: "Rigorous",
  state,
  created_at: now,
  updated_at: now,
  accepted_at: state === "accepted" ? now : null,
});

t.test("state × action × side: the next state or the refusal's code", async (t) => {
  const cases: [EndorsementState, EndorsementAction, string, string][] = [
    ["pending", "accept", B, "accepted"],
    ["pending", "reject", B, "rejected"],
    ["pending", "withdraw", A, "withdrawn"],
    ["accepted", "reject", B, "rejected"],
    ["accepted", "withdraw", A, "withdrawn"],
    ["accepted", "accept", B, "validation_failed"],
    ["rejected", "accept", B, "validation_failed"],
    ["rejected", "withdraw", A, "validation_failed"],
    ["withdrawn", "withdraw", A, "validation_failed"],
    ["withdrawn", "accept", B, "validation_failed"],
    // The wrong side is refused; a stranger does not see it.
    ["pending", "accept", A, "forbidden"],
    ["pending", "reject", A, "forbidden"],
    ["pending", "withdraw", B, "forbidden"],
    ["pending", "accept", C, "not_found"],
    ["accepted", "withdraw", C, "not_found"],
  ];
  for (const [state, action, org, expected] of cases) {
    const result = resultOf(() => transition(record(state), org, action));
    t.equal(result.ok ? result.value : result.error.code, expected, `${state} ${action} by ${org.slice(-1)}`);
  }
});

t.test("no self-endorsement", async (t) => {
  t.equal(refusal(() => mayEndorse(A, A))?.code, "validation_failed");
  t.equal(
    refusal(() => mayEndorse(A, B)),
    null,
  );
  t.same(LIVE_STATES, ["pending", "accepted"]);
});

/** An in-memory store: the one-live rule as the database's partial unique index keeps it. */
const memoryStore = (owners: Record<string, string>, members: Record<string, [Role, string][]> = {}) => {
  const rows = new Map<string, EndorsementRecord>();
  const audit: AuditRecord[] = [];
  const events: EventRecord[] = [];
  const mails: OutboxMail[] = [];
  const view = (r: EndorsementRecord): EndorsementView => ({
    ...r,
    endorser_name: "Org A",
    endorsed_name: "Org B",
    target_name: "Rust",
  });
  const store: EndorsementStore = {
    transaction: (work) =>
      work({
        lock: async (id) => rows.get(id) ?? null,
        async insertIfNoneLive(r) {
          const live = [...rows.values()].some(
            (x) =>
              x.endorser_id === r.endorser_id &&
              x.target_kind === r.target_kind &&
              x.target_id === r.target_id &&
              LIVE_STATES.includes(x.state),
          );
          if (!live) rows.set(r.id, r);
          return !live;
        },
        update: async (r) => void rows.set(r.id, r),
        view: async (id) => {
          const r = rows.get(id);
          return r ? view(r) : null;
        },
        memberAddresses: async (organizationId, roles, limit) =>
          (members[organizationId] ?? [])
            .filter(([role]) => roles.includes(role))
            .map(([, address]) => address)
            .slice(0, limit),
        appendAudit: async (entries) => void audit.push(...entries),
        appendEvents: async (records) => void events.push(...records),
        enqueueMail: async (mail) => void mails.push(mail),
      }),
    get: async (id) => {
      const r = rows.get(id);
      return r ? view(r) : null;
    },
    list: async () => ({ items: [...rows.values()].map(view), total: rows.size }),
    accepted: async () => [...rows.values()].filter((r) => r.state === "accepted").map(view),
    targetOwner: async (_kind, id) => owners[id] ?? null,
  };
  let n = 0;
  const deps: EndorsementDeps = {
    store,
    v3Base: "https://l.example/v1/obi/v3",
    publicUrl: "https://l.example/",
    newEventId: () => `event-${++n}`,
  };
  return { deps, audit, events, mails };
};

const member = (organizationId: string, role: "owner" | "issuer" = "owner"): MemberActor => ({
  kind: "member",
  accountId: `acct-${organizationId.slice(-1)}`,
  organizationId,
  role,
});

t.test("use cases: create, refuse a second live one, accept, withdraw, each audited", async (t) => {
  const { deps, audit, events, mails } = memoryStore(
    { [TEMPLATE]: B, [B]: B, [A]: A },
    {
      [B]: [
        ["owner", "owner@b.example"],
        ["issuer", "issuer@b.example"],
        ["admin", "admin@b.example"],
        ["viewer", "viewer@b.example"],
      ],
    },
  );
  let n = 0;
  const ctx = { now, newId: () => `id-${++n}` };
  const input = { target_kind: "badge_template" as const, target_id: TEMPLATE, comment: "  Rigorous  " };
  const made = await createEndorsement(deps, ctx, member(A), "203.0.113.9", A, input);
  t.equal(made.state, "pending");
  t.equal(made.comment, "Rigorous");
  t.equal(made.endorsed_id, B);
  const twice = await createEndorsement(deps, ctx, member(A), null, A, input).catch((e) => e);
  t.ok(isCoreError(twice) && twice.code === "validation_failed", "one live endorsement per endorser and target");
  const self = await createEndorsement(deps, ctx, member(B), null, B, input).catch((e) => e);
  t.ok(isCoreError(self) && self.code === "validation_failed", "no endorsement of one's own template");
  const unknown = await createEndorsement(deps, ctx, member(A), null, A, { ...input, target_id: C }).catch((e) => e);
  t.ok(isCoreError(unknown) && unknown.code === "validation_failed", "an unknown target is named");
  const issuer = await createEndorsement(deps, ctx, member(A, "issuer"), null, A, input).catch((e) => e);
  t.ok(isCoreError(issuer) && issuer.code === "forbidden", "an issuer may not speak for the organization");

  const stranger = await changeEndorsement(deps, ctx, member(C), null, C, made.id, "accept").catch((e) => e);
  t.ok(isCoreError(stranger) && stranger.code === "not_found");
  const accepted = await changeEndorsement(deps, ctx, member(B), null, B, made.id, "accept");
  t.equal(accepted.state, "accepted");
  t.same(accepted.accepted_at, now);
  t.equal((await getEndorsement(deps.store, member(A), A, made.id)).state, "accepted");
  const hidden = await getEndorsement(deps.store, member(C), C, made.id).catch((e) => e);
  t.ok(isCoreError(hidden) && hidden.code === "not_found");
  const withdrawn = await changeEndorsement(deps, ctx, member(A), null, A, made.id, "withdraw");
  t.equal(withdrawn.state, "withdrawn");
  const again = await createEndorsement(deps, ctx, member(A), null, A, input);
  t.equal(again.state, "pending", "a withdrawn endorsement leaves room for a new one");
  t.same(
    audit.map((a) => [a.organization_id, a.action, a.target]),
    [
      [A, "endorsement.created", `endorsement:${made.id}`],
      [B, "endorsement.accepted", `endorsement:${made.id}`],
      [A, "endorsement.withdrawn", `endorsement:${made.id}`],
      [A, "endorsement.created", `endorsement:${again.id}`],
    ],
  );
  t.equal(audit[0]?.client_address, "203.0.113.9");
  t.same(
    events.map((e) => [e.organization_id, e.event_type, (e.detail.endorsement as { state: string }).state]),
    [
      [A, "endorsement.created", "pending"],
      [B, "endorsement.created", "pending"],
      [A, "endorsement.state.changed", "accepted"],
      [B, "endorsement.state.changed", "accepted"],
      [A, "endorsement.state.changed", "withdrawn"],
      [B, "endorsement.state.changed", "withdrawn"],
      [A, "endorsement.created", "pending"],
      [B, "endorsement.created", "pending"],
    ],
    "each change is an event of both organizations, the endorsement as it is after it",
  );
  t.equal(new Set(events.map((e) => e.id)).size, events.length, "each its own event id");
  t.same(
    mails.map((m) => m.content.to),
    ["owner@b.example", "admin@b.example", "owner@b.example", "admin@b.example"],
    "each new endorsement is mailed to the endorsed side's members who may answer it (not issuers, not viewers)",
  );
  t.match(mails[0]?.content, {
    template: "endorsement_received",
    endorser_name: "Org A",
    target_name: "Rust",
    comment: "Rigorous",
    link: `https://l.example/console/${B}/endorsements`,
  });
});

t.test("the EndorsementCredential payload and the REST shape", async (t) => {
  const urls = { obiBase: "https://l.example/v1/obi/v2", v3Base: "https://l.example/v1/obi/v3" };
  const e: EndorsementView = {
    ...record("accepted"),
    id: "e1",
    endorser_name: "Org A",
    endorsed_name: "Org B",
    target_name: "Rust",
  };
  const payload = endorsementCredentialPayload({ ...e, accepted_at: now }, urls);
  t.same(payload.type, ["VerifiableCredential", "EndorsementCredential"]);
  t.equal(payload.credentialSubject.id, `${urls.obiBase}/badge_classes/${TEMPLATE}`);
  t.same(payload.credentialSubject.type, ["EndorsementSubject"]);
  t.equal(payload.credentialSubject.endorsementComment, "Rigorous");
  t.equal(payload.issuer.id, `${urls.v3Base}/issuers/${A}`);
  t.equal(payload.iss, payload.issuer.id);
  t.equal(payload.jti, `${urls.v3Base}/endorsements/e1`);
  t.equal(payload.sub, payload.credentialSubject.id);
  t.equal(payload.validFrom, "2026-12-07T10:00:00Z");
  t.equal(payload.nbf, Math.floor(now.getTime() / 1000));
  const profile = endorsementCredentialPayload(
    { ...e, target_kind: "organization", target_id: B, accepted_at: now },
    urls,
  );
  t.equal(profile.credentialSubject.id, `${urls.v3Base}/issuers/${B}`);
  t.equal(endorsementJson(e, urls.v3Base).credential_url, `${urls.v3Base}/endorsements/e1`);
  t.equal(endorsementJson({ ...e, state: "withdrawn" }, urls.v3Base).credential_url, null);
});
