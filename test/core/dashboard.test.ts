import t from "tap";
import type { EventRecord } from "../../core/events/mod.ts";
import {
  type BadgeCounters,
  deliveryStatus,
  lastWeeks,
  type QueuedNotification,
  readDashboard,
  weekOf,
} from "../../core/issuing/mod.ts";

t.test("weeks start on Monday, UTC", async (t) => {
  t.equal(weekOf(new Date("2026-11-27T20:00:00Z")), "2026-11-23", "a Friday: its Monday");
  t.equal(weekOf(new Date("2026-11-23T00:00:00Z")), "2026-11-23", "Monday midnight: itself");
  t.equal(weekOf(new Date("2026-11-22T23:59:59.999Z")), "2026-11-16", "Sunday night: the week before");
  t.equal(weekOf(new Date("1970-01-01T00:00:00Z")), "1969-12-29", "before the first Monday of the epoch");
  const weeks = lastWeeks(new Date("2026-11-27T20:00:00Z"));
  t.equal(weeks.length, 12);
  t.equal(weeks[11], "2026-11-23", "the current week last");
  t.equal(weeks[0], "2026-09-07", "eleven weeks before first");
});

t.test("the dashboard: states summed into issued, every week present, rows outside the range ignored", async (t) => {
  const asked: string[] = [];
  const counters: BadgeCounters = {
    stateCounts: async () => [
      { state: "pending", count: 3 },
      { state: "accepted", count: 2 },
      { state: "replaced", count: 1 },
    ],
    weekCounts: async (_org, from) => {
      asked.push(from);
      return [{ week: "2026-11-16", issued: 4, accepted: 2 }];
    },
  };
  const d = await readDashboard(counters, new Date("2026-11-27T20:00:00Z"), "org");
  t.same(asked, ["2026-09-07"], "the counters are read from the first week shown");
  t.same(d.counts, { issued: 6, pending: 3, accepted: 2, rejected: 0, revoked: 0, replaced: 1 });
  t.equal(d.weeks.length, 12);
  t.same(d.weeks[10], { week: "2026-11-16", issued: 4, accepted: 2 });
  t.same(d.weeks[11], { week: "2026-11-23", issued: 0, accepted: 0 }, "a week without badges is zero");
});

t.test("delivery status: the outbox first, then the latest sent event", async (t) => {
  const sent = (at: string): EventRecord => ({
    id: at,
    organization_id: "org",
    event_type: "pending_badge_notification.no_user.sent",
    occurred_at: new Date(at),
    detail: { recipient_email: "a@example.org" },
  });
  const queued = (failed: boolean): QueuedNotification => ({
    id: "m",
    to: "a@example.org",
    created_at: new Date("2026-11-27T10:00:00Z"),
    attempts: 1,
    last_error: "421",
    failed_at: failed ? new Date("2026-11-27T11:00:00Z") : null,
  });
  t.same(deliveryStatus([], []), { kind: "none" });
  t.same(deliveryStatus([sent("2026-11-27T09:00:00Z")], []), {
    kind: "sent",
    at: new Date("2026-11-27T09:00:00Z"),
    to: "a@example.org",
  });
  t.equal(deliveryStatus([sent("2026-11-27T09:00:00Z")], [queued(false)]).kind, "queued", "a resend waiting");
  t.equal(deliveryStatus([], [queued(true)]).kind, "failed");
});
