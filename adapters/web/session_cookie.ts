export const SESSION_COOKIE = "laurel_session";
