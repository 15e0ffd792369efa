import type { TSchema } from "typebox";
import { Value } from "typebox/value";
import type { FieldError } from "../errors/mod.ts";

const dotted = (pointer: string): string =>
  pointer
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");

const join = (prefix: string, path: string): string => [prefix, path].filter((p) => p !== "").join(".");

/**
 * Schema failures as the field errors of the error body (`badges.3.recipient_email`). TypeBox
 * reports a missing or unknown key against the parent object, so those are moved onto the key.
 */
export const schemaFieldErrors = (schema: TSchema, value: unknown, prefix = ""): FieldError[] => {
  const out: FieldError[] = [];
  for (const e of Value.Errors(schema, value)) {
    const at = join(prefix, dotted(e.instancePath));
    if (e.keyword === "required") {
      for (const key of (e.params as { requiredProperties: string[] }).requiredProperties) {
        out.push({ field: join(at, key), message: "is required" });
      }
    } else if (e.keyword === "additionalProperties") {
      for (const key of (e.params as { additionalProperties: string[] }).additionalProperties) {
        out.push({ field: join(at, key), message: "is not allowed" });
      }
    } else if (e.keyword === "boolean" && e.schemaPath.endsWith("/additionalProperties")) {
      // duplicate of the additionalProperties error above
    } else {
      out.push({ field: at === "" ? "body" : at, message: e.message });
    }
  }
  return out;
};
