import type { FieldError } from "../errors/mod.ts";

/**
 * Extended ISO 8601 date-time with a mandatory offset. A space may stand in for `T` (and before
 * the offset) and the offset may drop its colon, because clients written against the interface
 * send Rails-style values such as `2014-04-01 09:41:00 -0500`.
 */
const PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))? ?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/;

const GREGORIAN_CYCLE_MS = 146_097 * 86_400_000;

const daysInMonth = (year: number, month: number): number => {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
};

/**
 * Epoch milliseconds of an ISO 8601 timestamp with any offset, or a field error. Impossible
 * dates (February 30, hour 24, offset hour 24) are refused rather than rolled over as `Date` does.
 * Fractions beyond milliseconds are truncated.
 */
export const parseIssuedAt = (value: string, field = "issued_at"): number | FieldError => {
  const bad = (why: string): FieldError => ({ field, message: why });
  const m = PATTERN.exec(value.trim());
  if (!m) return bad("must be an ISO 8601 timestamp with a time zone offset, such as 2024-01-02T03:04:05+05:30");
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return bad("is not a valid calendar date");
  if (hour > 23 || minute > 59 || second > 59) return bad("is not a valid time of day");
  let offsetMinutes = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return bad("has an invalid time zone offset");
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const millis = Number((m[7] ?? "").padEnd(3, "0").slice(0, 3));
  // Date.UTC reads years 0-99 as 1900-1999; shifting by one 400-year Gregorian cycle avoids that.
  const utc = Date.UTC(year + 400, month - 1, day, hour, minute, second, millis) - GREGORIAN_CYCLE_MS;
  return utc - offsetMinutes * 60_000;
};

export const isFieldError = (v: number | FieldError): v is FieldError => typeof v !== "number";
