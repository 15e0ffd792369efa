import { readFileSync } from "node:fs";
import AjvModule from "ajv";
import Ajv2019Module from "ajv/dist/2019.js";
import addFormatsModule from "ajv-formats";

const Ajv = AjvModule.default;
const Ajv2019 = Ajv2019Module.default;
const addFormats = addFormatsModule.default;

/** 1EdTech's Open Badges API files (see test/fixtures/ob3-api/README.md). */
const fixture = (file: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/ob3-api/${file}`, import.meta.url), "utf8"));

const openapi = fixture("openapi.json");
// OpenAPI 3.0 schemas are JSON Schema draft 4/7 with `x-` keywords: compiled by the default Ajv
// from the document itself, so their `#/components/schemas/...` references resolve.
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
ajv.addSchema({ ...openapi, $id: "openapi.json" });
const component = (name: string) => ajv.compile({ $ref: `openapi.json#/components/schemas/${name}` });

const ajv2019 = new Ajv2019({ allErrors: true, strict: false });
addFormats(ajv2019);

const VALIDATORS = {
  discovery: component("ServiceDescriptionDocument"),
  profile: component("Profile"),
  credentials: ajv2019.compile(fixture("getopenbadgecredentialsresponse.json")),
  error: ajv2019.compile(fixture("imsx_statusinfo.json")),
};

/** The errors of an Open Badges API body against the official schema of its kind; empty when it passes. */
export const obApiSchemaErrors = (kind: keyof typeof VALIDATORS, body: unknown): string[] => {
  const validate = VALIDATORS[kind];
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${kind}: ${e.instancePath || "/"} ${e.message}`);
};

/** The scopes the specification's OpenAPI document gives each operation, by operationId. */
export const specOperations = (): Record<string, { path: string; method: string; scopes: string[] }> => {
  const out: Record<string, { path: string; method: string; scopes: string[] }> = {};
  for (const [path, methods] of Object.entries(openapi.paths as Record<string, Record<string, unknown>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const o = op as { operationId: string; security?: Record<string, string[]>[] };
      out[o.operationId] = { path, method, scopes: o.security?.flatMap((s) => Object.values(s).flat()) ?? [] };
    }
  }
  return out;
};
