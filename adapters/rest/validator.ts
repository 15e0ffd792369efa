import type { FastifySchemaCompiler, FastifySchemaValidationError } from "fastify";
import type { TSchema } from "typebox";
import { Compile } from "typebox/compile";

type Json = Record<string, unknown>;

const INTEGER = /^(0|[1-9][0-9]{0,15})$/;

/**
 * Strings of a query string or path become the integers and booleans the schema asks for only when
 * they are written plainly: `12`, `true`. TypeBox's own conversion also turns `1.5`, `0x1` or `1e3`
 * into integers, which would let `/oauth_applications/1.5` act on application 1.
 */
const convertStrict = (schema: Json, value: unknown): unknown => {
  if (typeof value !== "string") return value;
  const type = schema.type;
  if ((type === "integer" || type === "number") && INTEGER.test(value)) return Number(value);
  if (type === "boolean" && (value === "true" || value === "false")) return value === "true";
  if (Array.isArray(schema.anyOf)) {
    for (const option of schema.anyOf as Json[]) {
      const converted = convertStrict(option, value);
      if (converted !== value) return converted;
    }
  }
  return value;
};

const convertObject = (schema: Json, value: unknown): unknown => {
  if (!value || typeof value !== "object" || Array.isArray(value)) return value;
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const out: Json = { ...(value as Json) };
  for (const [key, sub] of Object.entries(properties)) {
    if (key in out) out[key] = convertStrict(sub, out[key]);
  }
  return out;
};

/** Each schema object's compiled check: routes share their params, query and body schemas. */
const checks = new WeakMap<TSchema, ReturnType<typeof Compile<TSchema>>>();
const compiled = (schema: TSchema) => {
  let check = checks.get(schema);
  if (!check) {
    check = Compile(schema);
    checks.set(schema, check);
  }
  return check;
};

/** Fastify's validator: compiled TypeBox checks; bodies are JSON and never converted. */
export const strictValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = compiled(schema);
  return (value: unknown): { value?: unknown; error?: FastifySchemaValidationError[] } => {
    const input = httpPart === "body" ? value : convertObject(schema as unknown as Json, value);
    if (check.Check(input)) return { value: input };
    return { error: [...check.Errors(input)] as unknown as FastifySchemaValidationError[] };
  };
};
