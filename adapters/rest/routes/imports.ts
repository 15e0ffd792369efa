import { Readable } from "node:stream";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { type Static, Type } from "typebox";
import { byCredential } from "../../../core/audit/mod.ts";
import { CoreError, notFound } from "../../../core/errors/mod.ts";
import {
  COLUMNS,
  createImport,
  dryRun,
  getImport,
  IMPORT_LIMITS,
  IMPORT_STATES,
  type ImportKind,
  type ImportRecord,
  type ImportState,
  type ImportStore,
  type RowProblem,
} from "../../../core/imports/mod.ts";
import { checkCsvFile, resultFileLines } from "../../csv/mod.ts";
import { beginUpload, lingerUnreadBody, spoolUpload, type UploadSlots } from "../../uploads/mod.ts";
import type { RestDeps } from "../deps.ts";
import { One, OrganizationParams, one } from "../envelope.ts";
import { callerOf, guard } from "../guard.ts";
import { BODY_ERRORS, created, documented, READ_ERRORS, resourceParams } from "../route_kit.ts";

/** Problems listed in one answer; the result file has every row. */
const PROBLEMS_LISTED = 1000;

const Problem = Type.Object({ row: Type.Integer(), column: Type.String(), message: Type.String() });

const ImportJson = Type.Object({
  id: Type.String({ format: "uuid" }),
  kind: Type.Union([Type.Literal("badges"), Type.Literal("employees")]),
  // A union built from the list is typed as `never`: the static type is given alongside.
  state: Type.Unsafe<ImportState>(Type.Union(IMPORT_STATES.map((s) => Type.Literal(s)))),
  file_name: Type.String(),
  file_sha256: Type.String(),
  row_count: Type.Integer(),
  valid_count: Type.Integer(),
  invalid_count: Type.Integer(),
  done_count: Type.Integer({ description: "Rows issued (badges) or written (employees) so far" }),
  failed_count: Type.Integer({ description: "Valid rows that could not be issued" }),
  pending_count: Type.Integer(),
  repeat_of: Type.Union([Type.String({ format: "uuid" }), Type.Null()]),
  created_at: Type.String(),
  started_at: Type.Union([Type.String(), Type.Null()]),
  finished_at: Type.Union([Type.String(), Type.Null()]),
  result_url: Type.String(),
  errors: Type.Array(Problem, { description: `Each problem by row and column (at most ${PROBLEMS_LISTED})` }),
});

const PreviewJson = Type.Object({
  kind: Type.Union([Type.Literal("badges"), Type.Literal("employees")]),
  dry_run: Type.Literal(true),
  row_count: Type.Integer(),
  valid_count: Type.Integer(),
  invalid_count: Type.Integer(),
  repeat_of: Type.Union([Type.String({ format: "uuid" }), Type.Null()]),
  errors: Type.Array(Problem),
});

const ImportParams = resourceParams("import_id");

const startFields = {
  dry_run: Type.Optional(Type.Boolean({ description: "Only check the file and answer the preview" })),
  repeat: Type.Optional(Type.Boolean({ description: "Import a file already imported to the organization" })),
  file_name: Type.Optional(Type.String({ maxLength: 255 })),
};

const StartQuery = Type.Object(startFields, { additionalProperties: false });

const BadgeStartQuery = Type.Object(
  {
    ...startFields,
    badge_template_id: Type.Optional(
      Type.String({
        format: "uuid",
        description: "The template of every row without its own badge_template_id (the column may then be left out)",
      }),
    ),
  },
  { additionalProperties: false },
);

const problemsJson = (problems: RowProblem[]) =>
  problems.slice(0, PROBLEMS_LISTED).map((p) => ({ row: p.row, column: p.field, message: p.message }));

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

const FAMILY = { badges: "issued_badges", employees: "workforce" } as const;
const TAGS = { badges: ["Badges"], employees: ["Employees"] };

/**
 * CSV imports of badges (`/badges/imports`, scope `issued_badges`) or employee records
 * (`/employees/imports`, scope `workforce`): the same flags as the batch endpoints (starting is a
 * write, reading a read). Laurel's addition to the interface (docs/interface.md).
 */
export const importRoutes =
  (deps: RestDeps, uploads: UploadSlots, kind: ImportKind) => async (plugin: FastifyInstance) => {
    const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
    const store: ImportStore = deps.imports;
    const onRequest = guard(deps.authenticator, deps.clock, FAMILY[kind]);
    const base = `/organizations/:organization_id/${kind}/imports`;
    const schema = documented(TAGS[kind]);
    const limits = IMPORT_LIMITS[kind];
    const columns = COLUMNS[kind];
    const json = (r: ImportRecord, problems: RowProblem[]) => ({
      id: r.id,
      kind: r.kind,
      state: r.state,
      file_name: r.file_name,
      file_sha256: r.file_sha256,
      row_count: r.row_count,
      valid_count: r.row_count - r.invalid_count,
      invalid_count: r.invalid_count,
      done_count: r.done_count,
      failed_count: r.failed_count,
      pending_count: r.row_count - r.invalid_count - r.done_count - r.failed_count,
      repeat_of: r.repeat_of,
      created_at: r.created_at.toISOString(),
      started_at: iso(r.started_at),
      finished_at: iso(r.finished_at),
      result_url: `${deps.baseUrl}/organizations/${r.organization_id}/${kind}/imports/${r.id}/result`,
      errors: problemsJson(problems),
    });
    const own = async (p: { organization_id: string; import_id: string }): Promise<ImportRecord> => {
      const record = await getImport(store, p.organization_id, p.import_id);
      if (record.kind !== kind) throw notFound("Import");
      return record;
    };

    // The file is read by the route once the caller is authenticated and allowed (the guard runs on
    // the request, before any parser): the parser hands the body over unread.
    app.addContentTypeParser("text/csv", (_request, body, done) => done(null, body));
    app.addHook("onRequest", (request, reply, done) => {
      lingerUnreadBody(request, reply);
      done();
    });
    const tooLarge = () =>
      new CoreError("payload_too_large", `A ${kind} import file holds at most ${limits.bytes / 1024 / 1024} MiB`);

    app.post(base, {
      onRequest,
      schema: schema({
        summary: `Import ${kind} from a CSV file (text/csv); the valid rows are ${kind === "badges" ? "issued" : "written"} in the background`,
        description: `Header row, then one row per ${kind === "badges" ? "badge" : "employee record"} (row 1 is the first under the header). Required columns: ${columns.required.join(", ")}; optional: ${columns.optional.join(", ")}. At most ${limits.rows.toLocaleString("en")} rows and ${limits.bytes / 1024 / 1024} MiB, UTF-8. Each row is checked with the batch endpoint's rules and against the organization (its template known and active, no second live badge of a template that gives one); its problems are listed by row and column and it is skipped. \`dry_run=true\` only answers the preview.${kind === "badges" ? " `badge_template_id` names the template of the rows without their own." : ""} A file already imported to the organization (same SHA-256) is refused (422) unless \`repeat=true\`.`,
        params: OrganizationParams,
        querystring: kind === "badges" ? BadgeStartQuery : StartQuery,
        body: Type.String({ description: "The CSV file" }),
        consumes: ["text/csv"],
        response: {
          200: One(PreviewJson),
          201: One(ImportJson),
          ...BODY_ERRORS,
        },
      }),
      validatorCompiler: ({ schema, httpPart }) => {
        if (httpPart === "body") return (value: unknown) => ({ value });
        return app.validatorCompiler?.({ schema, httpPart, method: "POST", url: base }) ?? (() => true);
      },
      handler: async (request, reply) => {
        const p = request.params;
        const q = request.query;
        // Only the text/csv parser hands over a stream; a body of any other type the API reads is refused.
        // The body schema documents the file as text; what arrives is whatever a parser returned.
        const body: unknown = request.body;
        if (!(body instanceof Readable)) throw new CoreError("unsupported_media_type", "Send the file as text/csv");
        beginUpload(uploads, request, reply, limits.bytes, tooLarge);
        const file = await spoolUpload(body, limits.bytes, tooLarge);
        try {
          const now = deps.clock();
          const template =
            "badge_template_id" in q && typeof q.badge_template_id === "string" ? q.badge_template_id : null;
          const check = { now, template };
          if (q.dry_run) {
            // Checked only: no row is written anywhere.
            const preview = await checkCsvFile(kind, file.read(), check, dryRun(store, p.organization_id));
            const earlier = await store.sameFile(p.organization_id, kind, file.sha256);
            return one({
              kind,
              dry_run: true as const,
              row_count: preview.row_count,
              valid_count: preview.valid_count,
              invalid_count: preview.invalid_count,
              repeat_of: earlier?.id ?? null,
              errors: problemsJson(preview.problems),
            });
          }
          const { record, preview } = await createImport(
            store,
            { now, newId: deps.newId, by: byCredential(callerOf(request).credential, request.ip) },
            p.organization_id,
            kind,
            { sha256: file.sha256, name: q.file_name ?? "" },
            { start: true, allowRepeat: q.repeat === true },
            (into) => checkCsvFile(kind, file.read(), check, into),
          );
          const location = `${deps.baseUrl}/organizations/${p.organization_id}/${kind}/imports/${record.id}`;
          return created(reply, json(record, preview.problems), location);
        } finally {
          await file.dispose();
        }
      },
    });

    app.get(`${base}/:import_id`, {
      onRequest,
      schema: schema({
        summary: `Get a ${kind} import: its state, counts and every problem by row and column`,
        params: ImportParams,
        response: { 200: One(ImportJson), ...READ_ERRORS },
      }),
      handler: async (request) => {
        const record = await own(request.params);
        return one(json(record, await store.problems(record.id, PROBLEMS_LISTED)));
      },
    });

    // The answer is a stream, which the schema's string type does not admit: typed by the route generic.
    plugin.get<{ Params: Static<typeof ImportParams> }>(`${base}/:import_id/result`, {
      onRequest,
      schema: schema({
        summary: `The result file of a ${kind} import (CSV: row, status, id, key, errors)`,
        description:
          "One line per row of the uploaded file. Cells starting with =, +, -, @, a tab or a carriage return are prefixed with an apostrophe, so a spreadsheet shows them as text.",
        params: ImportParams,
        response: { 200: { content: { "text/csv": { schema: Type.String() } } }, ...READ_ERRORS },
      }),
      handler: async (request, reply) => {
        const record = await own(request.params);
        reply
          .header("content-type", "text/csv; charset=utf-8")
          .header("content-disposition", `attachment; filename="import-${record.id}-result.csv"`)
          .header("cache-control", "no-store");
        return reply.send(Readable.from(resultFileLines(store, record.id)));
      },
    });
  };
