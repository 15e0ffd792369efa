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

const words = (parts: string[]): string =>
  parts
    .flatMap((p) => p.split("_"))
    .map((w) => (w === "url" || w === "id" ? w.toUpperCase() : w === "ids" ? "IDs" : w))
    .join(" ");

/**
 * A field's name as a person reads it: `criteria_url` is "the criteria URL", `alignments.0.url`
 * "the URL of alignment 1" (lists count from 1 on a page), core's `milestones[1].required` "the
 * required of milestone 2".
 */
export const fieldLabel = (field: string): string => {
  // Core names list items with brackets as well (`milestones[1].required`).
  const parts = field.replace(/\[(\d+)\]/g, ".$1").split(".");
  // The outermost item first: `milestones.0.badge_template_ids.2` is "badge template ID 3 of milestone 1".
  const at = parts.findIndex((p) => /^\d+$/.test(p));
  if (at < 0) return `the ${words(parts)}`;
  const item = `${words(parts.slice(0, at)).replace(/s$/, "")} ${Number(parts[at]) + 1}`;
  return at === parts.length - 1 ? item : `${fieldLabel(parts.slice(at + 1).join("."))} of ${item}`;
};

/**
 * A refusal to show on the form it came from, or null when it is not one (then it is rethrown):
 * one sentence, each field's problem in core's plain words.
 */
export const formProblem = (err: unknown): string | null => {
  if (!isCoreError(err) || err.code !== "validation_failed") return null;
  const details = err.errors.map((f) => `${fieldLabel(f.field)} ${f.message}`).join("; ");
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

const DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const DATE_TIME = /^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const two = (n: string): string => n.padStart(2, "0");

/**
 * A date or time as people type it on a form whose label says UTC (`2026-12-01`, `2026-12-1 9:30`,
 * `2026-12-01T09:30:00`, or what `datetime-local` sends), as the API's date-time: a date alone is
 * midnight UTC, a time without a zone is UTC, a zone written is kept. Anything else is passed on
 * unchanged, so the API's own check refuses it in its words.
 */
export const typedDateTime = (value: string): string => {
  const v = value.trim();
  const date = DATE.exec(v);
  if (date) return `${date[1]}-${two(date[2] ?? "")}-${two(date[3] ?? "")}T00:00:00Z`;
  const t = DATE_TIME.exec(v);
  if (!t) return v;
  const [, y, mo, d, h, mi, sec, frac, zone] = t;
  const z = !zone
    ? "Z"
    : zone.toUpperCase() === "Z"
      ? "Z"
      : zone.includes(":")
        ? zone
        : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  return `${y}-${two(mo ?? "")}-${two(d ?? "")}T${two(h ?? "")}:${mi}:${sec ?? "00"}${frac ?? ""}${z}`;
};
