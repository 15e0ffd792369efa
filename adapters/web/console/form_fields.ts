import type { FastifyRequest } from "fastify";
import type { TSchema } from "typebox";
import { schemaFieldErrors } from "../../../core/badges/mod.ts";
import { isCoreError, validationFailed } from "../../../core/errors/mod.ts";
import { sentValue } from "../sent.ts";

/** Every value of a repeated form field (checkboxes), text only. */
export const fieldValues = (request: FastifyRequest, name: string): string[] => {
  const value = sentValue(request.body, name);
  const all = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return all.filter((v): v is string => typeof v === "string");
};

/** The form's input checked against the API's own schema, so both doors accept the same values. */
export const checked = <T>(schema: TSchema, input: unknown, what: string): T => {
  const errors = schemaFieldErrors(schema, input);
  if (errors.length > 0) throw validationFailed(`Check the ${what}`, errors);
  return input as T;
};

/** A refusal to show on the form it came from, or null when it is not one (then it is rethrown). */
export const formProblem = (err: unknown): string | null => {
  if (!isCoreError(err) || err.code !== "validation_failed") return null;
  const details = err.errors.map((f) => `${f.field.replace(/_/g, " ")} ${f.message}`).join("; ");
  return details ? `${err.message}: ${details}.` : err.message;
};

/**
 * What `attempt` answers; when core refuses the form's input, what `refused` answers with that
 * refusal instead (the form again, with the reason). Any other failure is rethrown.
 */
export const tryForm = async <T>(attempt: () => Promise<T>, refused: (error: string) => T | Promise<T>): Promise<T> => {
  try {
    return await attempt();
  } catch (err) {
    const error = formProblem(err);
    if (!error) throw err;
    return refused(error);
  }
};
