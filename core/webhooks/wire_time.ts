/**
 * `Date#toISOString` for the hot path of deliveries, cached per second: the dates of one batch of
 * attempts fall within a few seconds of each other, so the year-to-seconds text is built once per
 * second and only the milliseconds are written per call. Same text as `toISOString` (and as
 * `isoSeconds` of core/shared for `isoSecondsCached`), for every valid date.
 */
const SLOTS = 16;
const seconds = new Float64Array(SLOTS).fill(Number.NaN);
/** `YYYY-MM-DDTHH:MM:SS` (or the extended year form) of the second in the same slot. */
const prefixes: string[] = new Array<string>(SLOTS).fill("");

const prefixOf = (d: Date, second: number): string => {
  const slot = second & (SLOTS - 1);
  if (seconds[slot] === second) return prefixes[slot] as string;
  const iso = d.toISOString();
  const prefix = iso.slice(0, iso.length - 5);
  seconds[slot] = second;
  prefixes[slot] = prefix;
  return prefix;
};

const MILLIS = Array.from({ length: 1000 }, (_, i) => `.${String(i).padStart(3, "0")}Z`);

/** The same text as `d.toISOString()` (which throws for an invalid date, as this does). */
export const isoMillisCached = (d: Date): string => {
  const t = d.getTime();
  if (!Number.isFinite(t)) return d.toISOString();
  const second = Math.floor(t / 1000);
  return prefixOf(d, second) + (MILLIS[t - second * 1000] as string);
};

/** Seconds precision: the same text as `isoSeconds` (`YYYY-MM-DDTHH:MM:SSZ`). */
export const isoSecondsCached = (d: Date): string => {
  const t = d.getTime();
  if (!Number.isFinite(t)) return d.toISOString();
  const prefix = prefixOf(d, Math.floor(t / 1000));
  // A year outside 0000-9999 has the extended form, which `isoSeconds` cuts at 19 characters.
  return prefix.length === 19 ? `${prefix}Z` : `${prefix.slice(0, 19)}Z`;
};
