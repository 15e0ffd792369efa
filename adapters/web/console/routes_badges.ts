import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Static, Type } from "typebox";
import {
  BADGE_LIST,
  BadgeIssueBody,
  BadgeReplaceBody,
  BadgeRevokeBody,
  TEMPLATE_LIST,
} from "../../../core/badges/mod.ts";
import { type CoreError, isCoreError } from "../../../core/errors/mod.ts";
import { EVENT_LIST } from "../../../core/events/mod.ts";
import {
  BULK_LIMIT,
  badgeActivity,
  deleteBadge,
  getBadge,
  type IssuingContext,
  issueBadge,
  listBadges,
  listTemplates,
  readDashboard,
  replaceBadge,
  resendNotification,
  revokeBadge,
} from "../../../core/issuing/mod.ts";
import { parseListQuery } from "../../../core/listing/mod.ts";
import { PAGE_SIZE, pageRequest } from "../../../core/shared/mod.ts";
import { EMPLOYEE_LIST, getEmployee, listEmployees } from "../../../core/workforce/mod.ts";
import { pageAnswer } from "../errors.ts";
import { field, uuidParam } from "../routes_public.ts";
import { doneNotice, sentValue } from "../sent.ts";
import type { WebKit } from "../web_deps.ts";
import {
  BADGE_FILTER_KEYS,
  type BadgeFilters,
  type BulkSummary,
  badgePage,
  badgesPage,
  bulkSummaryText,
  dashboardPage,
  type FieldMessages,
  type IssueForm,
  issuePage,
} from "./badge_pages.ts";
import { askFirst, isConfirmed, type Question } from "./confirm_pages.ts";
import type { ConsoleDeps, ConsoleMember, MemberPage } from "./console_deps.ts";
import { consolePath } from "./console_layout.ts";
import { type EmployeeFilters, employeePage, employeesPage } from "./employee_pages.ts";
import { checked, fieldLabel, formProblem, tryForm, typedDateTime } from "./form_fields.ts";
import type { ConsoleGate } from "./routes_console.ts";
import { grantorTemplates } from "./routes_issuers.ts";

const NOTICES: Record<string, string> = {
  issued: "Badge issued.",
  resent: "Notification queued: it goes out in a moment. The earlier link no longer shows the recipient.",
  revoked: "Badge revoked.",
  replaced: "Badge replaced: this is the new one.",
  deleted: "Badge deleted.",
};

const LATEST_EVENTS = 10;
/** The templates offered in a form's list: an organization's fit a page of 100. */
const TEMPLATES_SHOWN = 100;
/** Draft templates named on the issue form, each marked to be published first. */
const DRAFTS_SHOWN = 20;

/** The query string's pairs as the browser sent them, empty fields of a GET form left out. */
const queryPairs = (url: string, keys: readonly string[]): [string, string][] => {
  const at = url.indexOf("?");
  const pairs = at < 0 ? [] : [...new URLSearchParams(url.slice(at + 1))];
  return pairs.filter(([k, v]) => v.trim() !== "" && (keys.includes(k) || k === "page" || k === "sort"));
};

const pairValue = (pairs: [string, string][], key: string): string => pairs.find(([k]) => k === key)?.[1] ?? "";

/** The value of each filter key among the pairs ("" when absent), as the filter form shows them again. */
const pairValues = <K extends string>(pairs: [string, string][], keys: readonly K[]): Record<K, string> => {
  const values = {} as Record<K, string>;
  for (const key of keys) values[key] = pairValue(pairs, key);
  return values;
};

/** One evidence link a line: `https://…`, or `Name | https://…`. */
const evidenceOf = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .map((line, i) => {
      const bar = line.lastIndexOf("|");
      const name = bar >= 0 ? line.slice(0, bar).trim() : "";
      const value = bar >= 0 ? line.slice(bar + 1).trim() : line;
      return { type: "UrlEvidence" as const, name: name || `Evidence ${i + 1}`, value };
    });

/** The refusal's field errors by form field: `evidence.1.value` belongs to the evidence box. */
const sentence = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

const fieldMessages = (err: CoreError): FieldMessages => {
  const out: FieldMessages = {};
  for (const e of err.errors) {
    const key = e.field.split(".")[0] ?? e.field;
    const name = key === "evidence" ? "evidence" : key;
    if (!out[name]) out[name] = sentence(`${fieldLabel(e.field)} ${e.message}.`);
  }
  return out;
};

/** The list's page size: the API's 50, or 100; anything else is refused with a 400 page. */
const BadgeListView = Type.Object({ per: Type.Optional(Type.Union([Type.Literal("50"), Type.Literal("100")])) });
type BadgeListView = Static<typeof BadgeListView>;

/** What a bulk action did, from the query string of the redirect after it; null when it is not one. */
const bulkSummaryOf = (request: FastifyRequest): BulkSummary | null => {
  const sent = (name: string) => sentValue(request.query, name);
  const action = sent("bulk");
  if (action !== "revoke" && action !== "resend") return null;
  const n = (v: unknown): number => (typeof v === "string" && /^\d{1,6}$/.test(v) ? Number(v) : 0);
  return { action, done: n(sent("changed")), skipped: n(sent("skipped")), unsent: n(sent("unsent")) };
};

const nowLocal = (now: Date): string => now.toISOString().slice(0, 16);

/**
 * The dashboard, issuing one badge, the badges and their actions, and the employees: each through
 * the core use case its REST route uses, each gated by the role table.
 */
export const badgeRoutes = (kit: WebKit, deps: ConsoleDeps, gate: ConsoleGate) => async (app: FastifyInstance) => {
  const b = deps.badges;
  const ctx = (member: ConsoleMember, request: FastifyRequest): IssuingContext => ({
    now: kit.deps.clock(),
    newId: b.ids.newId,
    newEventId: b.ids.newEventId,
    newSalt: b.ids.newSalt,
    by: member.by(request.ip),
  });
  const badgesPath = (member: ConsoleMember) => consolePath(member.organizationId, "badges");
  const templatesFor = (member: ConsoleMember, state: "active" | "draft" | null, shown = TEMPLATES_SHOWN) =>
    listTemplates(
      b.issuing,
      member.organizationId,
      parseListQuery(TEMPLATE_LIST, [...(state ? [["state", state] as const] : []), ["sort", "name"] as const]),
      pageRequest(1, shown),
    );

  app.get("/console/:org", async (request, reply) => {
    const member = await gate(request, reply, "badges.read");
    if (!member) return reply;
    const [dashboard, latest] = await Promise.all([
      readDashboard(b.counters, kit.deps.clock(), member.organizationId),
      b.events.list(member.organizationId, parseListQuery(EVENT_LIST, []), pageRequest(1, LATEST_EVENTS)),
    ]);
    return kit.page(
      reply,
      200,
      dashboardPage(kit.frame(request, reply, "Dashboard"), member, { dashboard, events: latest.items }),
    );
  });

  const showIssue: MemberPage<[form: IssueForm, refusal?: CoreError | null]> = async (
    request,
    reply,
    member,
    status,
    form,
    refusal = null,
  ) => {
    // Drafts are shown, not offered: a template missing from the list looked like a fault.
    const [templates, drafts, onBehalf] = await Promise.all([
      templatesFor(member, "active"),
      templatesFor(member, "draft", DRAFTS_SHOWN),
      grantorTemplates(deps.issuerAuthorizations, member),
    ]);
    return kit.page(
      reply,
      status,
      issuePage(kit.frame(request, reply, "Issue a badge"), member, {
        templates: templates.items,
        drafts: drafts.items,
        onBehalf,
        form,
        error: refusal ? formProblem(refusal) : null,
        fields: refusal ? fieldMessages(refusal) : {},
      }),
    );
  };

  app.get<{ Querystring: { template?: unknown } }>("/console/:org/issue", async (request, reply) => {
    const member = await gate(request, reply, "badges.issue");
    if (!member) return reply;
    const template = request.query.template;
    return showIssue(request, reply, member, 200, {
      badge_template_id: typeof template === "string" ? template : "",
      issued_to_first_name: "",
      issued_to_middle_name: "",
      issued_to_last_name: "",
      recipient_email: "",
      issued_at: nowLocal(kit.deps.clock()),
      expires_at: "",
      evidence: "",
      notification_message: "",
      suppress: false,
    });
  });

  app.post("/console/:org/issue", async (request, reply) => {
    const member = await gate(request, reply, "badges.issue");
    if (!member) return reply;
    const form: IssueForm = {
      badge_template_id: field(request, "badge_template_id").trim(),
      issued_to_first_name: field(request, "issued_to_first_name"),
      issued_to_middle_name: field(request, "issued_to_middle_name"),
      issued_to_last_name: field(request, "issued_to_last_name"),
      recipient_email: field(request, "recipient_email"),
      issued_at: field(request, "issued_at"),
      expires_at: field(request, "expires_at"),
      evidence: field(request, "evidence"),
      notification_message: field(request, "notification_message"),
      suppress: field(request, "suppress_badge_notification_email") === "true",
    };
    try {
      const input: Record<string, unknown> = {
        badge_template_id: form.badge_template_id,
        issued_to_first_name: form.issued_to_first_name.trim(),
        issued_to_last_name: form.issued_to_last_name.trim(),
        recipient_email: form.recipient_email.trim(),
        issued_at: typedDateTime(form.issued_at),
      };
      if (form.issued_to_middle_name.trim()) input.issued_to_middle_name = form.issued_to_middle_name.trim();
      if (form.expires_at.trim()) input.expires_at = typedDateTime(form.expires_at);
      const evidence = evidenceOf(form.evidence);
      if (evidence.length > 0) input.evidence = evidence;
      if (form.notification_message.trim()) input.notification_message = form.notification_message;
      if (form.suppress) input.suppress_badge_notification_email = true;
      const body = checked<BadgeIssueBody>(BadgeIssueBody, input, "badge");
      const issued = await issueBadge(b.issuing, ctx(member, request), member.organizationId, body, { audit: true });
      return reply.redirect(`${badgesPath(member)}/${issued.view.badge.id}?done=issued`, 303);
    } catch (err) {
      if (!isCoreError(err) || err.code !== "validation_failed") throw err;
      return showIssue(request, reply, member, 422, form, err);
    }
  });

  app.get("/console/:org/badges", async (request, reply) => {
    const member = await gate(request, reply, "badges.read");
    if (!member) return reply;
    const pairs = queryPairs(request.url, BADGE_FILTER_KEYS);
    const per = new URLSearchParams(request.url.split("?")[1] ?? "").get("per") ?? "";
    const filters: BadgeFilters = { ...pairValues(pairs, BADGE_FILTER_KEYS), sort: pairValue(pairs, "sort"), per };
    const templates = await templatesFor(member, null);
    const frame = kit.frame(request, reply, "Badges");
    const base = { templates: templates.items, filters, pageSize: PAGE_SIZE, bulkLimit: BULK_LIMIT };
    const summary = bulkSummaryOf(request);
    const notice = summary ? bulkSummaryText(summary) : doneNotice(NOTICES, request);
    try {
      const size = checked<BadgeListView>(BadgeListView, per ? { per } : {}, "page size");
      const pageSize = size.per ? Number(size.per) : PAGE_SIZE;
      const query = parseListQuery(BADGE_LIST, pairs);
      const page = await listBadges(b.issuing, member.organizationId, query, pageRequest(query.page, pageSize));
      return kit.page(
        reply,
        200,
        badgesPage(frame, member, {
          ...base,
          pageSize,
          badges: page.items,
          total: page.total,
          page: query.page,
          error: null,
          notice,
        }),
      );
    } catch (err) {
      // A filter, order or page size the list refuses (a bad date typed by hand): the form says why, as the API would.
      if (!isCoreError(err) || (err.code !== "bad_request" && err.code !== "validation_failed")) throw err;
      const details = err.errors.map((e) => e.message).join("; ");
      return kit.page(
        reply,
        400,
        badgesPage(frame, member, {
          ...base,
          badges: [],
          total: 0,
          page: 1,
          error: `${err.message}${details ? `: ${details}` : ""}.`,
          notice: null,
        }),
      );
    }
  });

  const showBadge = async (
    request: FastifyRequest,
    reply: FastifyReply,
    member: ConsoleMember,
    id: string,
    status: number,
    extra: { error?: string; reason?: string; issuedAt?: string; recipientEmail?: string } = {},
  ) => {
    const view = await getBadge(b.issuing, member.organizationId, id);
    const activity = await badgeActivity(b.activity, member.organizationId, id);
    return kit.page(
      reply,
      status,
      badgePage(kit.frame(request, reply, "Badge"), member, b.issuing.urls, {
        view,
        ...activity,
        notice: doneNotice(NOTICES, request),
        error: extra.error ?? null,
        reason: extra.reason ?? "",
        now: extra.issuedAt || nowLocal(kit.deps.clock()),
        recipientEmail: extra.recipientEmail ?? "",
      }),
    );
  };

  app.get("/console/:org/badges/:id", async (request, reply) => {
    const member = await gate(request, reply, "badges.read");
    if (!member) return reply;
    return showBadge(request, reply, member, uuidParam(request), 200);
  });

  /** A badge action: done, back to a page with its notice; refused, the badge's page says why. */
  const action =
    (
      gated: "badges.issue" | "badges.revoke" | "badges.replace" | "badges.delete",
      work: (member: ConsoleMember, request: FastifyRequest, id: string) => Promise<string>,
      /** For what cannot be undone: the question asked first, once what was sent is checked. */
      ask?: (member: ConsoleMember, request: FastifyRequest, id: string) => Promise<Question>,
    ) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const member = await gate(request, reply, gated);
      if (!member) return reply;
      const id = uuidParam(request);
      return tryForm(
        async () => {
          if (ask && !isConfirmed(request))
            return askFirst(kit, request, reply, member, "badges", await ask(member, request, id));
          return reply.redirect(await work(member, request, id), 303);
        },
        (error) =>
          showBadge(request, reply, member, id, 422, {
            error,
            reason: field(request, "reason").slice(0, 1000),
            // The replacement form as sent, when it was the one refused.
            issuedAt: field(request, "issued_at").slice(0, 32),
            recipientEmail: field(request, "recipient_email").slice(0, 320),
          }),
      );
    };

  app.post(
    "/console/:org/badges/:id/resend",
    action("badges.issue", async (member, request, id) => {
      await resendNotification(b.issuing, ctx(member, request), member.organizationId, id);
      return `${badgesPath(member)}/${id}?done=resent`;
    }),
  );

  app.post(
    "/console/:org/badges/:id/revoke",
    action(
      "badges.revoke",
      async (member, request, id) => {
        const body = checked<BadgeRevokeBody>(BadgeRevokeBody, { reason: field(request, "reason").trim() }, "reason");
        await revokeBadge(b.issuing, ctx(member, request), member.organizationId, id, body);
        return `${badgesPath(member)}/${id}?done=revoked`;
      },
      async (member, request, id) => {
        const body = checked<BadgeRevokeBody>(BadgeRevokeBody, { reason: field(request, "reason").trim() }, "reason");
        const { badge } = await getBadge(b.issuing, member.organizationId, id);
        return {
          question: `Revoke the badge of ${badge.recipient_email}?`,
          consequences: [
            `Verifiers will see it as revoked, with your reason: “${body.reason}”.`,
            "A revoked badge cannot be restored; you can issue a new one.",
          ],
          action: `${badgesPath(member)}/${id}/revoke`,
          fields: { reason: body.reason },
          confirm: "Revoke badge",
          back: `${badgesPath(member)}/${id}`,
        };
      },
    ),
  );

  app.post(
    "/console/:org/badges/:id/replace",
    action("badges.replace", async (member, request, id) => {
      const input: Record<string, unknown> = { issued_at: typedDateTime(field(request, "issued_at")) };
      const email = field(request, "recipient_email").trim();
      if (email) input.recipient_email = email;
      const body = checked<BadgeReplaceBody>(BadgeReplaceBody, input, "replacement");
      const { issued } = await replaceBadge(b.issuing, ctx(member, request), member.organizationId, id, body);
      return `${badgesPath(member)}/${issued.view.badge.id}?done=replaced`;
    }),
  );

  app.post(
    "/console/:org/badges/:id/delete",
    action(
      "badges.delete",
      async (member, request, id) => {
        await deleteBadge(b.issuing, ctx(member, request), member.organizationId, id);
        return `${badgesPath(member)}?done=deleted`;
      },
      async (member, _request, id) => {
        const { badge } = await getBadge(b.issuing, member.organizationId, id);
        return {
          question: `Delete the badge of ${badge.recipient_email}?`,
          consequences: [
            "It is removed for good, and verifiers no longer find it valid. This cannot be undone.",
            "To withdraw a badge and keep its record, revoke it instead.",
          ],
          action: `${badgesPath(member)}/${id}/delete`,
          confirm: "Delete badge",
          back: `${badgesPath(member)}/${id}`,
        };
      },
    ),
  );

  const EMPLOYEE_FILTER_KEYS = ["name_or_email", "employee_state", "team", "department", "external_id"] as const;

  app.get("/console/:org/employees", async (request, reply) => {
    const member = await gate(request, reply, "employees.read");
    if (!member) return reply;
    const pairs = queryPairs(request.url, EMPLOYEE_FILTER_KEYS);
    const filters: EmployeeFilters = pairValues(pairs, EMPLOYEE_FILTER_KEYS);
    const frame = kit.frame(request, reply, "Employees");
    try {
      const query = parseListQuery(EMPLOYEE_LIST, pairs);
      const page = await listEmployees(deps.employees, member.organizationId, query, pageRequest(query.page));
      const authorized = await deps.employees.workforceAuthorized(member.organizationId);
      return kit.page(
        reply,
        200,
        employeesPage(frame, member, {
          employees: page.items,
          total: page.total,
          page: query.page,
          pageSize: PAGE_SIZE,
          authorized,
          filters,
          error: null,
        }),
      );
    } catch (err) {
      if (!isCoreError(err) || (err.code !== "bad_request" && err.code !== "forbidden")) throw err;
      const details = err.errors.map((e) => e.message).join("; ");
      return kit.page(
        reply,
        pageAnswer(err).status,
        employeesPage(frame, member, {
          employees: [],
          total: 0,
          page: 1,
          pageSize: PAGE_SIZE,
          authorized: await deps.employees.workforceAuthorized(member.organizationId),
          filters,
          error: `${err.message}${details ? `: ${details}` : ""}.`,
        }),
      );
    }
  });

  app.get("/console/:org/employees/:id", async (request, reply) => {
    const member = await gate(request, reply, "employees.read");
    if (!member) return reply;
    const view = await getEmployee(deps.employees, member.organizationId, uuidParam(request));
    return kit.page(reply, 200, employeePage(kit.frame(request, reply, "Employee"), member, view));
  });
};
