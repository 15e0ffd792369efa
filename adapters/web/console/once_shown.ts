import type { FastifyReply, FastifyRequest } from "fastify";
import type { SecretBox } from "../../../core/credentials/mod.ts";
import type { WebKit } from "../web_deps.ts";
import type { ConsoleMember } from "./console_deps.ts";
import { type ConsoleSection, consolePath } from "./console_layout.ts";

/**
 * A secret made by a console form (a client secret, a token value, the webhook signing secret),
 * carried from the POST that made it to the one page that shows it. The form answers with a 303,
 * so a reload never makes a second one; the value rides in a cookie sealed with the server's key
 * (AES-256-GCM), HttpOnly, scoped to the section's path, living `ONCE_SHOWN_SECONDS`, and
 * cleared by the GET that reads it: it survives one view, never a reload, and is never in a URL
 * or a log. docs/decisions.md ("The organization console") gives the reasoning.
 */
const ONCE_SHOWN_COOKIE = "laurel_once";
const ONCE_SHOWN_SECONDS = 300;

interface Sealed<T> {
  /** What the value is, so one section never shows another's. */
  k: string;
  /** The account and organization it was made for. */
  a: string;
  o: string;
  /** Until when (ms since the epoch) it may be shown. */
  e: number;
  v: T;
}

const accountOf = (request: FastifyRequest): string => request.earner?.user.id ?? "";

const cookieOptions = (kit: WebKit, path: string) => ({
  httpOnly: true,
  sameSite: "strict" as const,
  secure: kit.deps.publicUrl.startsWith("https:"),
  path,
});

/** Seals `value` for the next GET of `section`'s page by the same account. */
export const keepForOneView = <T>(
  kit: WebKit,
  secrets: Pick<SecretBox, "seal">,
  request: FastifyRequest,
  reply: FastifyReply,
  member: ConsoleMember,
  section: ConsoleSection,
  kind: string,
  value: T,
): void => {
  const sealed: Sealed<T> = {
    k: kind,
    a: accountOf(request),
    o: member.organizationId,
    e: kit.deps.clock().getTime() + ONCE_SHOWN_SECONDS * 1000,
    v: value,
  };
  reply.setCookie(ONCE_SHOWN_COOKIE, secrets.seal(JSON.stringify(sealed)), {
    ...cookieOptions(kit, consolePath(member.organizationId, section)),
    maxAge: ONCE_SHOWN_SECONDS,
  });
};

/**
 * The value kept for this page, once: the cookie is cleared whatever it held, and the answer is
 * not stored by any cache. Null when there is none, it has expired, or it is another's.
 */
export const takeOneView = <T>(
  kit: WebKit,
  secrets: Pick<SecretBox, "open">,
  request: FastifyRequest,
  reply: FastifyReply,
  member: ConsoleMember,
  section: ConsoleSection,
  kind: string,
  isValue: (v: unknown) => v is T,
): T | null => {
  const raw = request.cookies[ONCE_SHOWN_COOKIE];
  if (!raw) return null;
  reply.clearCookie(ONCE_SHOWN_COOKIE, cookieOptions(kit, consolePath(member.organizationId, section)));
  reply.header("cache-control", "no-store");
  let sealed: Partial<Sealed<unknown>>;
  try {
    sealed = JSON.parse(secrets.open(raw)) as Partial<Sealed<unknown>>;
  } catch {
    // Sealed under another key, or altered: there is nothing to show.
    return null;
  }
  const fresh = typeof sealed.e === "number" && sealed.e > kit.deps.clock().getTime();
  const mine = sealed.k === kind && sealed.a === accountOf(request) && sealed.o === member.organizationId;
  return fresh && mine && isValue(sealed.v) ? sealed.v : null;
};

/** A check that `v` is an object whose `keys` are all strings. */
export const stringsOf =
  <K extends string>(...keys: K[]) =>
  (v: unknown): v is Record<K, string> =>
    typeof v === "object" && v !== null && keys.every((k) => typeof Reflect.get(v, k) === "string");
