import type { StandardSchemaV1 } from "@standard-schema/spec";
import type { Static, TSchema } from "typebox";
import { Compile } from "typebox/compile";
import { unstorableTextErrors } from "../../core/shared/mod.ts";

/**
 * tRPC 11 validates with any Standard Schema; TypeBox 1.x is not one, so this wraps a compiled
 * TypeBox check. Issue paths keep the instance path, so messages name the field. Text PostgreSQL
 * cannot hold (U+0000, a lone surrogate) is refused here, the internal API's edge, as the public
 * listener refuses it in its hook.
 */
export const standard = <T extends TSchema>(schema: T): StandardSchemaV1<Static<T>, Static<T>> => {
  const check = Compile(schema);
  return {
    "~standard": {
      version: 1,
      vendor: "typebox",
      validate(value) {
        if (check.Check(value)) {
          const refused = unstorableTextErrors(value);
          if (refused.length === 0) return { value: value as Static<T> };
          return { issues: refused.map((e) => ({ message: e.message, path: e.field.split(".") })) };
        }
        const issues = [...check.Errors(value)].slice(0, 20).map((e) => {
          const err = e as { instancePath?: string; message?: string; params?: { requiredProperties?: string[] } };
          const path = (err.instancePath ?? "").split("/").filter(Boolean);
          const missing = err.params?.requiredProperties?.[0];
          return { message: err.message ?? "is invalid", path: missing ? [...path, missing] : path };
        });
        return { issues };
      },
    },
  };
};
