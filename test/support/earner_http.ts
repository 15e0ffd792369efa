import { createHash, randomBytes } from "node:crypto";
import { earnerFlows } from "./earner_flows.ts";
import type { startSmtpSink } from "./smtp_sink.ts";

type SmtpSink = Awaited<ReturnType<typeof startSmtpSink>>;

export interface FormAnswer {
  status: number;
  /** Where a 303 sends the browser, as given (a path of Laurel or the client's redirect URI). */
  location: string | null;
  text: string;
}

/**
 * An earner's browser reduced to what the pages need: a cookie jar, the CSRF token of the last
 * page read, and forms sent from the pages' origin. The same requests a browser makes, at a
 * fraction of the cost, for tests whose subject is what the actions cause rather than the pages.
 */
export const httpEarner = (origin: string, smtp: SmtpSink) => {
  const jar = new Map<string, string>();
  let csrf: string | null = null;
  const { linkMailedTo } = earnerFlows(() => ({ origin, smtp }));

  const send = async (path: string, init: RequestInit = {}): Promise<FormAnswer> => {
    const res = await fetch(path.startsWith("http") ? path : `${origin}${path}`, {
      ...init,
      redirect: "manual",
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
      },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const at = pair.indexOf("=");
      const [name, value] = [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      const expired = attributes.some((a) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(a));
      if (value === "" || expired) jar.delete(name);
      else jar.set(name, value);
    }
    const text = await res.text();
    csrf = /name="_csrf" value="([^"]+)"/.exec(text)?.[1] ?? csrf;
    return { status: res.status, location: res.headers.get("location"), text };
  };

  /** A page, read as a browser opens it (the session and CSRF cookies go along). */
  const get = (path: string): Promise<FormAnswer> => send(path);

  /** Submits a form of the pages with the CSRF token of the last page read; a refusal is an answer too. */
  const submit = async (path: string, fields: Record<string, string> = {}): Promise<FormAnswer> => {
    if (csrf === null) await get("/sign_in");
    return send(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin },
      body: new URLSearchParams({ ...fields, _csrf: csrf ?? "" }).toString(),
    });
  };

  /** Submits a form as `submit` does, and throws on a refusal (4xx, 5xx). */
  const post = async (path: string, fields: Record<string, string> = {}): Promise<FormAnswer> => {
    const answer = await submit(path, fields);
    if (answer.status >= 400) throw new Error(`POST ${path}: ${answer.status}\n${answer.text.slice(0, 500)}`);
    return answer;
  };

  /** Uses the link mailed to `to` (among mails after the first `after`) by pressing its one button. */
  const useMailedLink = async (to: string, after: number): Promise<FormAnswer> => {
    const link = new URL(await linkMailedTo(to, after));
    await get(`${link.pathname}${link.search}`);
    return post("/sign_in/link", { token: link.searchParams.get("token") ?? "" });
  };

  /** Signs in by mailed link: the account of `email` is made when there is none. */
  const signIn = async (email: string): Promise<void> => {
    const before = smtp.mails.length;
    await post("/sign_in", { email });
    const done = await useMailedLink(email, before);
    if (!done.location?.startsWith("/wallet")) throw new Error(`sign-in of ${email} ended at ${done.location}`);
  };

  /** Merges the account owning `email` into the signed-in one (the account page's merge link). */
  const mergeIn = async (email: string): Promise<void> => {
    const before = smtp.mails.length;
    await post("/account/merge", { email });
    const done = await useMailedLink(email, before);
    if (done.location !== "/account?done=merged") throw new Error(`the merge of ${email} ended at ${done.location}`);
  };

  /** Allows an application on the consent page; answers the redirect to the client (with the code). */
  const allow = async (authorizeUrl: URL): Promise<URL> => {
    const page = await get(`${authorizeUrl.pathname}${authorizeUrl.search}`);
    if (page.status !== 200) throw new Error(`the consent page answered ${page.status} (${page.location})`);
    const params = Object.fromEntries(authorizeUrl.searchParams);
    const answer = await post(authorizeUrl.pathname, { ...params, decision: "allow" });
    return new URL(answer.location ?? "");
  };

  /** The cookies this browser holds now (session, CSRF secret), for requests built by hand. */
  const cookies = (): Map<string, string> => new Map(jar);
  /** The CSRF token of the last page read. */
  const csrfToken = (): string | null => csrf;

  return { get, post, submit, signIn, mergeIn, allow, useMailedLink, cookies, csrfToken };
};

export type HttpEarner = ReturnType<typeof httpEarner>;

/** An authorization request (PKCE S256) of the application `clientId` to `authUrl`'s endpoint. */
export const authorizeRequest = (authUrl: string, clientId: string, redirectUri: string) => {
  const verifier = randomBytes(32).toString("base64url");
  const url = new URL(`${authUrl}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: "profile public_badges",
    state: randomBytes(8).toString("hex"),
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  })) {
    url.searchParams.set(k, v);
  }
  return { url, verifier };
};

/** The code of a consent's redirect exchanged at the token endpoint (client_secret_post). */
export const exchangeCode = async (
  authUrl: string,
  client: { uid: string; secret: string },
  redirect: URL,
  request: { verifier: string; redirectUri: string },
): Promise<{ access_token: string }> => {
  const res = await fetch(`${authUrl}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: redirect.searchParams.get("code") ?? "",
      redirect_uri: request.redirectUri,
      code_verifier: request.verifier,
      client_id: client.uid,
      client_secret: client.secret,
    }).toString(),
  });
  if (res.status !== 200) throw new Error(`token endpoint: ${res.status} ${await res.text()}`);
  return (await res.json()) as { access_token: string };
};

/** The loopback redirect URI of the test clients: nothing listens there; the redirect is only read. */
export const CLIENT_REDIRECT = "http://127.0.0.1:9/callback";

/**
 * A Connect application of an organization (`auth`: its authorization token header) and the step
 * that connects an earner to it: consent allowed on the page, code exchanged for tokens.
 */
export const connectApplication = async (
  laurel: { baseUrl: string; authUrl: string },
  organizationId: string,
  auth: string,
) => {
  const res = await fetch(`${laurel.baseUrl}/organizations/${organizationId}/oauth_applications`, {
    method: "POST",
    headers: { authorization: auth, "content-type": "application/json" },
    body: JSON.stringify({ name: "Connect client", redirect_uris: [CLIENT_REDIRECT] }),
  });
  if (res.status !== 201) throw new Error(`application: ${res.status} ${await res.text()}`);
  const client = ((await res.json()) as { data: { uid: string; secret: string } }).data;
  const connect = async (earner: HttpEarner): Promise<{ access_token: string }> => {
    const request = authorizeRequest(laurel.authUrl, client.uid, CLIENT_REDIRECT);
    const redirect = await earner.allow(request.url);
    return exchangeCode(laurel.authUrl, client, redirect, { verifier: request.verifier, redirectUri: CLIENT_REDIRECT });
  };
  return { client, connect };
};
