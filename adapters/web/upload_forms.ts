import type { FastifyReply, FastifyRequest } from "fastify";
import { type FormReading, isMultipart, type MultipartForm, readMultipartForm } from "../uploads/mod.ts";
import type { WebKit } from "./web_deps.ts";

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * The route reads its own multipart form with `readUploadForm`, after its session and role
     * checks; the form's CSRF token, its first field, is checked there before the rest is read.
     */
    uploadForm?: boolean;
  }
}

/**
 * The most a page's upload form may send when its file past the limit is dropped rather than
 * refused (`dropOversizedFile`): the form is read to its end, so the page naming the limit reaches
 * a browser still sending (an answer before the body is read ends in a reset connection) and the
 * typed fields come back. Past it the form is refused unread; laurel.js stops such a file before
 * it is sent.
 */
export const UPLOAD_PAGE_MAX_BYTES = 16 * 1024 * 1024;

/** The route option of a page route that takes an upload (`readUploadForm`). */
export const UPLOAD_ROUTE = { config: { uploadForm: true } } as const;

/**
 * An upload form of a page, read once the route knows who sends it: its CSRF token must be the
 * form's first field and verify before any other part is read; then the text fields and the file
 * as `readMultipartForm` bounds them. The text fields become the request's body, as a plain
 * form's are, so the route's field helpers read them alike.
 */
export const readUploadForm = async <F>(
  kit: WebKit,
  request: FastifyRequest,
  reply: FastifyReply,
  reading: Omit<FormReading<F>, "slots" | "first">,
): Promise<MultipartForm<F>> => {
  // A plain form (no file chosen, or a script's) was parsed and its token checked like any other.
  if (!isMultipart(request)) {
    const fields = new Map<string, string[]>();
    for (const [name, value] of Object.entries(request.body ?? {}))
      if (typeof value === "string") fields.set(name, [value]);
    return { fields, file: null };
  }
  const form = await readMultipartForm(request, reply, {
    ...reading,
    slots: kit.uploads,
    first: {
      name: "_csrf",
      check: (token) => {
        request.body = { _csrf: token };
        return new Promise<void>((resolve, reject) =>
          request.server.csrfProtection(request, reply, (err?: Error) => (err ? reject(err) : resolve())),
        );
      },
    },
  });
  request.body = Object.fromEntries([...form.fields].map(([name, values]) => [name, values.at(-1) ?? ""]));
  return form;
};
