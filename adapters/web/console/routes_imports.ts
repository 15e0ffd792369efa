import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { TEMPLATE_LIST } from "../../../core/badges/mod.ts";
import { CoreError, isCoreError, notFound } from "../../../core/errors/mod.ts";
import {
  createImport,
  getImport,
  IMPORT_LIMITS,
  type ImportKind,
  type ImportRecord,
  importProgress,
  isImportKind,
  startImport,
} from "../../../core/imports/mod.ts";
import { listTemplates } from "../../../core/issuing/mod.ts";
import { parseListQuery } from "../../../core/listing/mod.ts";
import type { MemberAction } from "../../../core/members/mod.ts";
import { pageRequest } from "../../../core/shared/mod.ts";
import { type CsvReading, checkCsvFile, resultFileLines } from "../../csv/mod.ts";
import { type MultipartForm, type SpooledUpload, spoolUpload } from "../../uploads/mod.ts";
import { uuidParam } from "../routes_public.ts";
import { doneNotice, sentValue } from "../sent.ts";
import { readUploadForm, UPLOAD_ROUTE } from "../upload_forms.ts";
import type { WebKit } from "../web_deps.ts";
import { changeContext } from "./console_access.ts";
import type { ConsoleDeps, ConsoleMember, MemberPage } from "./console_deps.ts";
import {
  exampleCsv,
  importKindsFor,
  importPage,
  importPath,
  importsPage,
  PER_ROW,
  readingQuery,
  readingSentence,
} from "./import_pages.ts";
import type { ConsoleGate } from "./routes_console.ts";
import { grantorTemplates } from "./routes_issuers.ts";

const ACTION: Record<ImportKind, MemberAction> = { badges: "badges.issue", employees: "employees.write" };

/** Active templates offered for a badge file, by name; a row may still name any other by id. */
const TEMPLATES_OFFERED = 500;

/** Problems shown on a page; the result file has every row. */
const PROBLEMS_SHOWN = 500;

const NOTICES: Record<string, string> = { started: "Started: the workers are on it." };

/**
 * `/console/<org>/imports`: upload a CSV, see every row checked, then issue the valid rows, which
 * the worker processes do in the background; the same core use cases as REST's `.../imports`.
 */
export const importRoutes = (kit: WebKit, deps: ConsoleDeps, gate: ConsoleGate) => async (app: FastifyInstance) => {
  const store = deps.imports;
  const base = "/console/:org/imports";

  /** The active templates a badge file may be issued with, by name. */
  const activeTemplates = async (member: ConsoleMember) =>
    (
      await listTemplates(
        deps.badges.issuing,
        member.organizationId,
        parseListQuery(TEMPLATE_LIST, [
          ["state", "active"],
          ["sort", "name"],
        ]),
        pageRequest(1, TEMPLATES_OFFERED),
      )
    ).items.map((v) => ({ id: v.template.id, name: v.template.name }));

  const listPage: MemberPage<
    [chosen: string, error?: string | null, problems?: Array<{ field: string; message: string }>]
  > = async (request, reply, member, status, chosen, error = null, problems = []) => {
    const [imports, templates, onBehalf] = await Promise.all([
      store.list(member.organizationId, 50),
      member.allowed("badges.issue") ? activeTemplates(member) : [],
      member.allowed("badges.issue") ? grantorTemplates(deps.issuerAuthorizations, member) : [],
    ]);
    return kit.page(
      reply,
      status,
      importsPage(kit.frame(request, reply, "Imports"), member, {
        imports,
        kinds: importKindsFor(member),
        templates: { templates, chosen, onBehalf },
        error,
        problems,
      }),
    );
  };

  /** The import of the path, when the member may see its kind (a hidden one is not found). */
  const found = async (request: FastifyRequest, reply: FastifyReply) => {
    // Every role that may write employee records may issue badges: one gate for the section.
    const member = await gate(request, reply, "badges.issue");
    if (!member) return null;
    const record = await getImport(store, member.organizationId, uuidParam(request, "id"));
    if (!member.allowed(ACTION[record.kind])) {
      const refused = await gate(request, reply, ACTION[record.kind]);
      if (!refused) return null;
    }
    return { member, record };
  };

  // `template` preselects a template's badge (a template page links here with it).
  app.get<{ Querystring: { template?: unknown } }>(base, async (request, reply) => {
    const member = await gate(request, reply, "badges.issue");
    if (!member) return reply;
    const template = request.query.template;
    return listPage(request, reply, member, 200, typeof template === "string" ? template : "");
  });

  app.get<{ Params: { file?: string } }>(`${base}/examples/:file`, async (request, reply) => {
    const member = await gate(request, reply, "badges.issue");
    if (!member) return reply;
    const kind = /^(badges|employees)\.csv$/.exec(request.params.file ?? "")?.[1];
    if (!isImportKind(kind)) throw notFound("Example file");
    return reply
      .header("content-type", "text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="laurel-${kind}-example.csv"`)
      .send(exampleCsv(kind));
  });

  /** An import's largest file, whichever its kind: the bound of a body before its kind is read. */
  const largest = Math.max(IMPORT_LIMITS.badges.bytes, IMPORT_LIMITS.employees.bytes);

  app.post(base, UPLOAD_ROUTE, async (request, reply) => {
    // Every role that may write employee records may issue badges: the section's gate first,
    // then the kind's own right, from the fields before the file, before the file is read.
    const member = await gate(request, reply, "badges.issue");
    if (!member) return reply;
    let kind: ImportKind = "badges";
    let template = "";
    const tooLarge = () =>
      new CoreError("payload_too_large", `The file is larger than ${IMPORT_LIMITS[kind].bytes / 1024 / 1024} MiB.`);
    let form: MultipartForm<SpooledUpload>;
    try {
      form = await readUploadForm(kit, request, reply, {
        fileField: "file",
        maxFileBytes: largest,
        tooLarge,
        beforeFile: async (fields) => {
          const sent = fields.get("kind")?.[0];
          kind = isImportKind(sent) ? sent : "badges";
          template = fields.get("badge_template_id")?.[0]?.trim() ?? "";
          if (!member.allowed(ACTION[kind]))
            throw new CoreError("forbidden", `Your role (${member.role}) does not allow you to import ${kind}.`);
        },
        sink: (file, _max, refuse) => spoolUpload(file, IMPORT_LIMITS[kind].bytes, refuse),
      });
    } catch (err) {
      if (!isCoreError(err) || err.code !== "payload_too_large") throw err;
      return listPage(request, reply, member, 413, template, err.message);
    }
    const file = form.file;
    if (!file || file.content.bytes === 0) {
      await file?.content.dispose();
      return listPage(request, reply, member, 422, template, "Choose a CSV file to upload.");
    }
    let reading: CsvReading | null = null;
    try {
      const now = kit.deps.clock();
      const { record } = await createImport(
        store,
        changeContext(kit, deps, member, request),
        member.organizationId,
        kind,
        { sha256: file.content.sha256, name: file.name },
        // The page shows a repeated file as such before anything is issued; the member decides.
        { start: false, allowRepeat: true },
        (into) =>
          checkCsvFile(
            kind,
            file.content.read(),
            { now, template: kind === "badges" && template !== "" && template !== PER_ROW ? template : null },
            into,
            (r) => {
              reading = r;
            },
          ),
      );
      const read = reading ? `?${readingQuery(reading)}` : "";
      return reply.redirect(`${importPath(member.organizationId, record.id)}${read}`, 303);
    } catch (err) {
      if (!isCoreError(err) || err.code !== "validation_failed") throw err;
      return listPage(request, reply, member, 422, template, err.message, err.errors);
    } finally {
      await file.content.dispose();
    }
  });

  app.get(`${base}/:id`, async (request, reply) => {
    const here = await found(request, reply);
    if (!here) return reply;
    const { member, record } = here;
    return showImport(request, reply, member, record, 200, null);
  });

  const showImport = async (
    request: FastifyRequest,
    reply: FastifyReply,
    member: ConsoleMember,
    record: ImportRecord,
    status: number,
    error: string | null,
  ) => {
    const [problems, templates] = await Promise.all([
      store.problems(record.id, PROBLEMS_SHOWN),
      record.kind === "badges" ? store.templates(record.id) : [],
    ]);
    const repeatOf = record.repeat_of ? await store.get(member.organizationId, record.repeat_of) : null;
    reply.header("cache-control", "no-store");
    return kit.page(
      reply,
      status,
      importPage(kit.frame(request, reply, "Import"), member, record, {
        problems,
        problemCount: problems.length < PROBLEMS_SHOWN ? problems.length : record.invalid_count + record.failed_count,
        templates,
        mailPerHour: deps.mailPerOrganizationPerHour,
        repeatOf,
        notice: doneNotice(NOTICES, request),
        reading: readingSentence(String(sentValue(request.query, "read") ?? "")),
        error,
      }),
    );
  };

  app.post(`${base}/:id/start`, async (request, reply) => {
    const here = await found(request, reply);
    if (!here) return reply;
    const { member, record } = here;
    try {
      await startImport(store, changeContext(kit, deps, member, request), member.organizationId, record.id);
    } catch (err) {
      if (!isCoreError(err) || err.code !== "validation_failed") throw err;
      return showImport(request, reply, member, record, 422, "This import was already started.");
    }
    return reply.redirect(`${importPath(member.organizationId, record.id)}?done=started`, 303);
  });

  // The progress bar's script reads this; the page itself needs none of it.
  app.get(`${base}/:id/status`, async (request, reply) => {
    const here = await found(request, reply);
    if (!here) return reply;
    const { record } = here;
    const p = importProgress(record);
    reply.header("cache-control", "no-store");
    return {
      state: record.state,
      value: p.value,
      max: p.max,
      done: record.done_count,
      done_label: record.kind === "badges" ? "issued" : "written",
      failed: record.failed_count,
      invalid: record.invalid_count,
    };
  });

  app.get(`${base}/:id/result`, async (request, reply) => {
    const here = await found(request, reply);
    if (!here) return reply;
    const { record } = here;
    return reply
      .header("content-type", "text/csv; charset=utf-8")
      .header("content-disposition", `attachment; filename="import-${record.id}-result.csv"`)
      .header("cache-control", "no-store")
      .send(Readable.from(resultFileLines(store, record.id)));
  });
};
