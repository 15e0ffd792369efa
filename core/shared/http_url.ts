import { Type } from "typebox";

/** The longest address an input may hold. */
const URL_MAX = 2048;

/**
 * An http(s) address: `format: uri` alone admits `javascript:` and `data:` links that pages, OB
 * records and other platforms would render.
 */
export const HttpUrl = Type.String({ format: "uri", pattern: "^[Hh][Tt][Tt][Pp][Ss]?://", maxLength: URL_MAX });
