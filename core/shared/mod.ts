export { csvLine, neutralizeCell } from "./csv.ts";
export { isEmailAddress } from "./email.ts";
export { HttpUrl } from "./http_url.ts";
export { originOf } from "./origin.ts";
export type { PageRequest } from "./pagination.ts";
export { MAX_PAGE, MAX_PER, PAGE_SIZE, PageMetadata, pageMetadata, pageRequest } from "./pagination.ts";
export { isUnstorableText, unstorableReason, unstorableTextErrors } from "./stored_text.ts";
export { addSeconds, DAY_SECONDS, isoDate, isoMillis, isoMillisOrNull, isoSeconds } from "./time.ts";
