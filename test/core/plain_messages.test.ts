import t from "tap";
import { Type } from "typebox";
import { plainSchemaMessage, schemaFieldErrors, TemplateCreateBody } from "../../core/badges/mod.ts";
import { HttpUrl } from "../../core/shared/mod.ts";

t.test("every kind of schema failure reads as words about the value", (t) => {
  // [issue, message]
  const cases: [Parameters<typeof plainSchemaMessage>[0], string][] = [
    [{ keyword: "minLength", params: { limit: 1 } }, "cannot be empty"],
    [{ keyword: "minLength", params: { limit: 8 } }, "must be at least 8 characters long"],
    [{ keyword: "maxLength", params: { limit: 5000 } }, "must be at most 5,000 characters long"],
    [{ keyword: "maxLength", params: { limit: 1 } }, "must be at most 1 character long"],
    [
      { keyword: "pattern", params: { pattern: "^[Hh][Tt][Tt][Pp][Ss]?://" } },
      "must be a web address starting with https:// (or http://)",
    ],
    [{ keyword: "pattern", params: { pattern: "^[a-z]+$" } }, "is not in the expected form"],
    [{ keyword: "format", params: { format: "email" } }, "must be an email address, such as name@example.org"],
    [{ keyword: "format", params: { format: "uri" } }, "must be a full web address, such as https://example.org/page"],
    [
      { keyword: "format", params: { format: "date-time" } },
      "must be a date, such as 2026-12-01, or a date and time, such as 2026-12-01T09:30:00Z",
    ],
    [{ keyword: "format", params: { format: "ipv6" } }, "is not in the expected form"],
    [{ keyword: "type", params: { type: "integer" } }, "must be a whole number"],
    [{ keyword: "type", params: { type: "boolean" } }, "must be true or false"],
    [{ keyword: "type", params: { type: ["string", "null"] } }, "has the wrong kind of value"],
    [{ keyword: "minimum", params: { comparison: ">=", limit: 1 } }, "must be at least 1"],
    [{ keyword: "exclusiveMaximum", params: { comparison: "<", limit: 10 } }, "must be less than 10"],
    [{ keyword: "minItems", params: { limit: 1 } }, "cannot be an empty list"],
    [{ keyword: "maxItems", params: { limit: 100 } }, "must hold at most 100 items"],
    [{ keyword: "enum", params: { allowedValues: ["draft", "active"] } }, "must be one of: draft, active"],
    [{ keyword: "required" }, "is required"],
    [{ keyword: "additionalProperties" }, "is not allowed"],
    [{ keyword: "not" }, "is not a value this field accepts"],
  ];
  for (const [issue, message] of cases) t.equal(plainSchemaMessage(issue), message, issue.keyword);
  t.end();
});

t.test("no message a person reads holds validator wording", (t) => {
  const Form = Type.Object(
    {
      name: Type.String({ minLength: 1, maxLength: 5 }),
      image_url: Type.Union([Type.Null(), HttpUrl]),
      email: Type.String({ format: "email" }),
      state: Type.Union([Type.Literal("draft"), Type.Literal("active")]),
    },
    { additionalProperties: false },
  );
  const errors = schemaFieldErrors(Form, { name: "", image_url: "ftp://x", email: "nope", state: "gone", extra: 1 });
  t.same(errors, [
    { field: "extra", message: "is not allowed" },
    { field: "name", message: "cannot be empty" },
    { field: "image_url", message: "must be a web address starting with https:// (or http://)" },
    { field: "email", message: "must be an email address, such as name@example.org" },
    { field: "state", message: "is not one of the allowed values" },
  ]);
  t.same(schemaFieldErrors(Type.Object({ state: Form.properties.state }), { state: "gone" }), [
    { field: "state", message: "must be one of: draft, active" },
  ]);
  const template = schemaFieldErrors(TemplateCreateBody, { name: "", description: "", criteria_url: "javascript:x" });
  for (const e of template) {
    t.notMatch(e.message, /fewer than|must match|\^|anyOf|schema|must be null/, `${e.field}: ${e.message}`);
  }
  t.end();
});
