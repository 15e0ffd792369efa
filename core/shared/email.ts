const EMAIL = /^[^\s@<>()"]+@[^\s@<>()"]+\.[^\s@<>()"]+$/;

/** A plausible address (the mail server has the last word); trimmed, at most 254 characters. */
export const isEmailAddress = (email: string): boolean => email.length <= 254 && EMAIL.test(email);
