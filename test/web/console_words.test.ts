import t from "tap";
import { EVENT_WORDS, eventLink, eventWords } from "../../adapters/web/console/event_words.ts";
import { fieldLabel, formProblem, typedDateTime } from "../../adapters/web/console/form_fields.ts";
import { readingQuery, readingSentence } from "../../adapters/web/console/import_pages.ts";
import { validationFailed } from "../../core/errors/mod.ts";
import { EVENT_TYPES, type EventType } from "../../core/events/mod.ts";

t.test("every event kind has words, none of them its code", (t) => {
  t.same(Object.keys(EVENT_WORDS).sort(), [...EVENT_TYPES].sort(), "one entry a kind");
  for (const kind of EVENT_TYPES) {
    const words = eventWords({ event_type: kind, detail: {} });
    t.match(words, /^[A-Z][a-z]* \S+ [a-z]/, `${kind}: a sentence`);
    t.notMatch(words, /[._]/, `${kind}: no code in "${words}"`);
  }
  t.equal(
    eventWords({ event_type: "badge.state.changed", detail: { badge: { state: "revoked" } } }),
    "A badge was revoked",
  );
  t.equal(
    eventWords({ event_type: "future.kind" as EventType, detail: {} }),
    "Event future.kind",
    "an unknown kind still reads",
  );
  t.end();
});

t.test("an event links to what it is about while that still exists", (t) => {
  const org = "o1";
  t.same(eventLink({ event_type: "pending_badge_notification.no_user.sent", detail: { badge: { id: "b1" } } }, org), {
    href: "/console/o1/badges/b1",
    label: "See the badge",
    action: "badges.read",
  });
  t.same(eventLink({ event_type: "badge_template.changed", detail: { badge_template: { id: "t1" } } }, org), {
    href: "/console/o1/templates/t1",
    label: "See the template",
    action: "templates.write",
  });
  t.same(
    eventLink({ event_type: "employment.badges.added", detail: { employment: { id: 7 }, badge: { id: "b" } } }, org),
    {
      href: "/console/o1/employees/7",
      label: "See the employee",
      action: "employees.read",
    },
  );
  t.equal(
    eventLink({ event_type: "badge.deleted", detail: { badge: { id: "b1" } } }, org),
    null,
    "a deleted badge has no page",
  );
  t.equal(eventLink({ event_type: "user.account_merged", detail: {} }, org), null);
  t.end();
});

t.test("a refused form reads as one sentence", (t) => {
  t.equal(fieldLabel("criteria_url"), "the criteria URL");
  t.equal(fieldLabel("alignments.0.url"), "the URL of alignment 1");
  t.equal(fieldLabel("evidence.2"), "evidence 3");
  t.equal(fieldLabel("milestones[1].required"), "the required of milestone 2", "core's brackets");
  t.equal(
    fieldLabel("milestones[0].badge_template_ids[2]"),
    "badge template ID 3 of milestone 1",
    "an item in an item, the outer one last",
  );
  t.equal(
    formProblem(
      validationFailed("Check the template", [
        { field: "name", message: "cannot be empty" },
        { field: "image_url", message: "must be a web address starting with https:// (or http://)" },
      ]),
    ),
    "Check the template: the name cannot be empty; the image URL must be a web address starting with https:// (or http://).",
  );
  t.equal(formProblem(new Error("x")), null, "not a refusal");
  t.end();
});

t.test("dates as people type them, read as UTC", (t) => {
  const cases: [string, string][] = [
    ["2026-12-01", "2026-12-01T00:00:00Z"],
    [" 2026-12-1 ", "2026-12-01T00:00:00Z"],
    ["2026-12-01 09:30", "2026-12-01T09:30:00Z"],
    ["2026-12-01T9:30", "2026-12-01T09:30:00Z"],
    ["2026-12-01T09:30:15.5", "2026-12-01T09:30:15.5Z"],
    ["2026-12-01 09:30+0200", "2026-12-01T09:30:00+02:00"],
    ["2026-12-01T09:30:00z", "2026-12-01T09:30:00Z"],
    ["tomorrow", "tomorrow"],
    ["01/12/2026", "01/12/2026"],
  ];
  for (const [typed, sent] of cases) t.equal(typedDateTime(typed), sent, typed);
  t.end();
});

t.test("how a file was read is said back, and only from a value the page made", (t) => {
  const query = readingQuery({ encoding: "windows-1252", delimiter: ";", bom: false });
  t.equal(query, "read=windows-1252.semicolon");
  t.match(readingSentence("windows-1252.semicolon"), /Windows-1252 text .* with semicolons between the columns\.$/);
  t.match(
    readingSentence("utf-8.tab.bom"),
    /^The file was read as UTF-8 text \(its byte order mark skipped\), with tabs/,
  );
  for (const bad of ["", "latin1.comma", "utf-8.pipe", "utf-8.comma.x", "utf-8.comma.bom.more", "<script>"]) {
    t.equal(readingSentence(bad), null, `"${bad}"`);
  }
  t.end();
});
