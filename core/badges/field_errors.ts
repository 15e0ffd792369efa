import type { TSchema } from "typebox";
import { Value } from "typebox/value";
import type { FieldError } from "../errors/mod.ts";

/** What a schema check reports about one value, as TypeBox (and AJV-style validators) spell it. */
export interface SchemaIssue {
  keyword: string;
  params?: Record<string, unknown>;
  schemaPath?: string;
}

const HTTP_PATTERN = "^[Hh][Tt][Tt][Pp][Ss]?://";

const FORMATS: Record<string, string> = {
  email: "must be an email address, such as name@example.org",
  uri: "must be a full web address, such as https://example.org/page",
  "date-time": "must be a date, such as 2026-12-01, or a date and time, such as 2026-12-01T09:30:00Z",
  date: "must be a date, such as 2026-12-01",
  uuid: "must be an id such as 0b6f4d3e-8c1a-4f7e-9a2b-5d6c7e8f9a0b",
};

const TYPES: Record<string, string> = {
  string: "must be text",
  integer: "must be a whole number",
  number: "must be a number",
  boolean: "must be true or false",
  object: "must be a set of named fields",
  array: "must be a list",
  null: "must be empty",
};

const count = (n: unknown, one: string, many: string): string =>
  `${typeof n === "number" ? n.toLocaleString("en-US") : String(n)} ${n === 1 ? one : many}`;

/**
 * One schema failure as the end of a sentence about the value ("must be an email address, ..."):
 * what people read on a form, an import check or an error body, instead of a validator's wording
 * (a regular expression, "fewer than 1 characters").
 */
export const plainSchemaMessage = (issue: SchemaIssue): string => {
  const p = issue.params ?? {};
  switch (issue.keyword) {
    case "minLength":
      return p.limit === 1 ? "cannot be empty" : `must be at least ${count(p.limit, "character", "characters")} long`;
    case "maxLength":
      return `must be at most ${count(p.limit, "character", "characters")} long`;
    case "pattern":
      return p.pattern === HTTP_PATTERN
        ? "must be a web address starting with https:// (or http://)"
        : "is not in the expected form";
    case "format":
      return FORMATS[String(p.format)] ?? "is not in the expected form";
    case "type": {
      const types = [p.type].flat().map(String);
      return types.length === 1
        ? (TYPES[types[0] ?? ""] ?? "has the wrong kind of value")
        : "has the wrong kind of value";
    }
    case "minimum":
    case "exclusiveMinimum":
      return `must be ${p.comparison === ">" ? "more than" : "at least"} ${p.limit}`;
    case "maximum":
    case "exclusiveMaximum":
      return `must be ${p.comparison === "<" ? "less than" : "at most"} ${p.limit}`;
    case "minItems":
      return p.limit === 1 ? "cannot be an empty list" : `must hold at least ${count(p.limit, "item", "items")}`;
    case "maxItems":
      return `must hold at most ${count(p.limit, "item", "items")}`;
    case "uniqueItems":
      return "must not repeat an item";
    case "enum":
      return Array.isArray(p.allowedValues)
        ? `must be one of: ${p.allowedValues.map(String).join(", ")}`
        : "is not one of the allowed values";
    case "const":
      return `must be ${String(p.allowedValue)}`;
    case "required":
      return "is required";
    case "additionalProperties":
      return "is not allowed";
    default:
      return "is not a value this field accepts";
  }
};

/**
 * The one message to give a field among what the checker reported on it. A nullable or a choice
 * of literals is an `anyOf`: its branches each fail ("must be null", one `const` per choice), and
 * only the branch the value was meant for, or the list of choices, says something useful.
 */
export const plainFieldMessage = (issues: SchemaIssue[]): string => {
  const inBranch = (i: SchemaIssue) => (i.schemaPath ?? "").includes("/anyOf/");
  const choices = issues.filter((i) => i.keyword === "const").map((i) => String(i.params?.allowedValue));
  if (choices.length > 1) return `must be one of: ${choices.join(", ")}`;
  // The checker may stop before every choice is reported: then the list would mislead.
  if (issues.some((i) => i.keyword === "const" && inBranch(i))) return "is not one of the allowed values";
  const useful = issues.filter(
    (i) => i.keyword !== "anyOf" && !(inBranch(i) && i.keyword === "type" && [i.params?.type].flat().includes("null")),
  );
  const first = useful[0] ?? issues[0];
  return first ? plainSchemaMessage(first) : "is not a value this field accepts";
};

const dotted = (pointer: string): string =>
  pointer
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");

const join = (prefix: string, path: string): string => [prefix, path].filter((p) => p !== "").join(".");

/**
 * Schema failures as the field errors of the error body (`badges.3.recipient_email`), one plain
 * message a field. TypeBox reports a missing or unknown key against the parent object, so those
 * are moved onto the key.
 */
export const schemaFieldErrors = (schema: TSchema, value: unknown, prefix = ""): FieldError[] => {
  const byField = new Map<string, SchemaIssue[]>();
  const add = (field: string, issue: SchemaIssue) => byField.set(field, [...(byField.get(field) ?? []), issue]);
  for (const e of Value.Errors(schema, value)) {
    const at = join(prefix, dotted(e.instancePath));
    if (e.keyword === "required") {
      for (const key of (e.params as { requiredProperties: string[] }).requiredProperties) {
        add(join(at, key), { keyword: "required" });
      }
    } else if (e.keyword === "additionalProperties") {
      for (const key of (e.params as { additionalProperties: string[] }).additionalProperties) {
        add(join(at, key), { keyword: "additionalProperties" });
      }
    } else if (e.keyword === "boolean" && e.schemaPath.endsWith("/additionalProperties")) {
      // duplicate of the additionalProperties error above
    } else {
      add(at === "" ? "body" : at, {
        keyword: e.keyword,
        params: e.params as Record<string, unknown>,
        schemaPath: e.schemaPath,
      });
    }
  }
  return [...byField].map(([field, issues]) => ({ field, message: plainFieldMessage(issues) }));
};
