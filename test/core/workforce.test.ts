import t from "tap";
import { isCoreError } from "../../core/errors/mod.ts";
import type { EventRecord } from "../../core/events/mod.ts";
import {
  employmentEventErrors,
  type RecordEmploymentEventInput,
  recordEmploymentEvent,
  setWorkforceAuthorization,
} from "../../core/workforce/mod.ts";
import { employmentOf } from "../support/employment.ts";
import { BADGE } from "../support/webhooks.ts";

const ORG = "11111111-1111-4111-8111-111111111111";
const OTHER = "22222222-2222-4222-8222-222222222222";
const EMPLOYEE = "33333333-3333-4333-8333-333333333333";
const NOW = new Date("2024-03-01T12:00:00.000Z");

const input = (over: Partial<RecordEmploymentEventInput>): RecordEmploymentEventInput => ({
  organization_id: ORG,
  event_type: "employment.updated",
  employment: employmentOf(ORG, EMPLOYEE),
  ...over,
});

t.test("which fields each employment kind takes (spec §6.4)", async (t) => {
  const cases: Array<[string, Partial<RecordEmploymentEventInput>, string[]]> = [
    ["updated, plain", {}, []],
    ["badges.added with its badge", { event_type: "employment.badges.added", badge: BADGE }, []],
    ["badges.removed without a badge", { event_type: "employment.badges.removed" }, ["badge"]],
    ["a badge on a kind that has none", { event_type: "employment.created", badge: BADGE }, ["badge"]],
    [
      "external badge on external_badges.added",
      { event_type: "employment.external_badges.added", external_badge: { name: "AWS" } },
      [],
    ],
    [
      "external badge elsewhere",
      { event_type: "employment.updated", external_badge: { name: "AWS" } },
      ["external_badge"],
    ],
    ["another employer", { employment: employmentOf(OTHER, EMPLOYEE) }, ["employment.employer.id"]],
    ["employer id in capitals", { employment: employmentOf(ORG.toUpperCase(), EMPLOYEE) }, []],
  ];
  for (const [name, over, fields] of cases)
    t.same(
      employmentEventErrors(input(over)).map((e) => e.field),
      fields,
      name,
    );
});

const memory = (authorized: Map<string, boolean>) => {
  const appended: EventRecord[] = [];
  return {
    appended,
    deps: {
      authorization: {
        get: async (id: string) => authorized.get(id) ?? null,
        set: async (id: string, value: boolean) => {
          if (!authorized.has(id)) return false;
          authorized.set(id, value);
          return true;
        },
      },
      appendEvents: async (events: EventRecord[]) => {
        appended.push(...events);
      },
    },
  };
};

t.test("recording: appended once, detail reduced unless authorized, errors as codes", async (t) => {
  const { deps, appended } = memory(new Map([[ORG, false]]));
  const ctx = { now: NOW, newEventId: () => "0190f000-0000-7000-8000-000000000001" };
  const reduced = await recordEmploymentEvent(deps, ctx, input({}));
  t.equal(appended.length, 1);
  t.match(appended[0], { organization_id: ORG, event_type: "employment.updated", occurred_at: NOW });
  t.same(appended[0]?.detail, { employment: employmentOf(ORG, EMPLOYEE) }, "the full record is stored");
  t.same((reduced as { employment: unknown }).employment, {
    id: EMPLOYEE,
    email: "ada@example.com",
    external_id: "E-1",
  });

  t.same(await setWorkforceAuthorization(deps, ORG, true), { organization_id: ORG, workforce_authorized: true });
  const full = await recordEmploymentEvent(deps, ctx, input({ event_type: "employment.badges.added", badge: BADGE }));
  t.same((full as { employment: unknown }).employment, employmentOf(ORG, EMPLOYEE));
  t.same((full as { badge: unknown }).badge, BADGE);

  const codeOf = async (p: Promise<unknown>) =>
    p.then(
      () => "resolved",
      (e) => (isCoreError(e) ? e.code : "other"),
    );
  t.equal(
    await codeOf(recordEmploymentEvent(deps, ctx, input({ event_type: "employment.badges.added" }))),
    "validation_failed",
  );
  t.equal(
    await codeOf(
      recordEmploymentEvent(deps, ctx, input({ organization_id: OTHER, employment: employmentOf(OTHER, EMPLOYEE) })),
    ),
    "not_found",
  );
  t.equal(await codeOf(setWorkforceAuthorization(deps, OTHER, true)), "not_found");
  t.equal(appended.length, 2, "nothing appended by the refused calls");
});
