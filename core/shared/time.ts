/** Wire timestamps: ISO 8601 in UTC with a `Z` suffix and milliseconds (docs/interface.md, Conventions). */
export const isoMillis = (d: Date): string => d.toISOString();

/** Seconds precision, as in the posted webhook summary. */
export const isoSeconds = (d: Date): string => `${d.toISOString().slice(0, 19)}Z`;

/** A `YYYY-MM-DD` date in UTC (`issued_at_date` of the standard badge shape). */
export const isoDate = (d: Date): string => d.toISOString().slice(0, 10);

export const isoMillisOrNull = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export const addSeconds = (d: Date, seconds: number): Date => new Date(d.getTime() + seconds * 1000);

export const DAY_SECONDS = 86_400;
