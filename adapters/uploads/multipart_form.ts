import { PassThrough, type Readable } from "node:stream";
import { Busboy, type BusboyConfig, type BusboyFileStream } from "@fastify/busboy";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { badRequest, CoreError } from "../../core/errors/mod.ts";
import { beginUpload, type UploadSlots } from "./upload_slots.ts";

/** One text field's most bytes: a template's longest text (5,000 characters) in any script. */
const FIELD_BYTES = 20 * 1024;
/** Text fields one form may send. */
const MAX_FIELDS = 40;
/** Room for a form's text fields and its parts' headers beside its file. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

/** Whether the request says its body is a multipart form. */
export const isMultipart = (request: FastifyRequest): boolean =>
  /^multipart\/form-data\s*(;|$)/i.test(request.headers["content-type"] ?? "");

/**
 * Lets a Fastify context take `multipart/form-data` bodies without reading them: a route reads
 * its form with `readMultipartForm` once it has decided who may send it.
 */
export const multipartBodies = (app: FastifyInstance): void => {
  app.addContentTypeParser("multipart/form-data", (_request, _body, done) => done(null, undefined));
};

/** A form as read: each text field's values in order, and the file part's content, when one was sent. */
export interface MultipartForm<F> {
  fields: Map<string, string[]>;
  file: { content: F; name: string } | null;
  /** With `dropOversizedFile`: the refusal of a file past the limit, whose bytes were dropped. */
  dropped?: Error;
}

export interface FormReading<F> {
  /** Every upload of the process shares these: a slot is held from the first byte read to the answer. */
  slots: UploadSlots;
  /** The file part's field name; a file part of another name is refused. */
  fileField: string;
  /** The file's most bytes. */
  maxFileBytes: number;
  /** The refusal of a file past `maxFileBytes` (a page may word it for its form). */
  tooLarge: () => Error;
  /**
   * The first part must be this text field: `check` runs on its value (on "" when the form begins
   * otherwise, and must then refuse) before another part is read.
   */
  first?: { name: string; check(value: string): Promise<void> };
  /**
   * A file past `maxFileBytes` is dropped rather than failing the form: the parts after it are
   * still read and `dropped` says why, so a page can show the form again with what was typed.
   * The body may then declare up to `maxBodyBytes` (past it, it is refused unread all the same);
   * the dropped bytes are read and thrown away, never kept.
   */
  dropOversizedFile?: { maxBodyBytes: number };
  /** Runs with the text fields sent before the file, before the file's first byte is read. */
  beforeFile?: (fields: ReadonlyMap<string, string[]>) => Promise<void>;
  /** Where the file's bytes go: memory for an image, a spooled file for a CSV. */
  sink(file: Readable, maxBytes: number, tooLarge: () => Error): Promise<F>;
}

/**
 * A browser writes `"`, CR and LF in a part's file name as `%22`, `%0D` and `%0A` (HTML's
 * multipart/form-data encoding); the name is given back as the person chose it.
 */
const unescapeName = (name: string): string =>
  name.replace(/%(22|0D|0A)/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

type Part =
  | { type: "field"; name: string; value: string; truncated: boolean }
  | { type: "file"; name: string; stream: BusboyFileStream; fileName: string };

/**
 * The parts of a multipart body in the order sent, one at a time: busboy waits while a file part
 * is not read (the socket is paused), and the text fields it reads ahead are bounded by its limits.
 */
async function* multipartParts(request: FastifyRequest, maxFileBytes: number): AsyncGenerator<Part> {
  const queue: Array<Part | Error | null> = [];
  let wake: (() => void) | null = null;
  const push = (item: Part | Error | null) => {
    queue.push(item);
    wake?.();
    wake = null;
  };
  const limited = (what: string) => () => push(new CoreError("payload_too_large", `The form has too many ${what}`));
  let parser: ReturnType<typeof Busboy>;
  try {
    parser = Busboy({
      headers: request.headers as BusboyConfig["headers"],
      limits: {
        fieldNameSize: 100,
        fieldSize: FIELD_BYTES,
        fields: MAX_FIELDS,
        files: 1,
        parts: MAX_FIELDS + 1,
        headerPairs: 20,
        fileSize: maxFileBytes + 1,
      },
    });
  } catch (err) {
    throw badRequest(`The form could not be read (${err instanceof Error ? err.message : "bad content type"})`);
  }
  parser
    .on("field", (name: string, value: string, nameTruncated: boolean, valueTruncated: boolean) =>
      push({ type: "field", name, value, truncated: nameTruncated || valueTruncated }),
    )
    .on("file", (name: string, stream: BusboyFileStream, fileName: string) =>
      push({ type: "file", name, stream, fileName: unescapeName(fileName) }),
    )
    .on("partsLimit", limited("parts"))
    .on("filesLimit", limited("files"))
    .on("fieldsLimit", limited("fields"))
    .on("error", (err: unknown) =>
      push(badRequest(`The form could not be read (${err instanceof Error ? err.message : "malformed"})`)),
    )
    .on("finish", () => push(null));
  const body = request.raw;
  body.on("error", (err) => push(err));
  body.pipe(parser);
  try {
    for (;;) {
      if (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      const item = queue.shift();
      if (item === null || item === undefined) return;
      if (item instanceof Error) throw item;
      yield item;
    }
  } finally {
    body.unpipe(parser);
  }
}

/**
 * Reads a multipart form part by part, in the order the browser sent them (a form's fields come
 * in document order, so `_csrf` first), once `beginUpload` let it begin; text fields, their
 * count and the file are bounded as they arrive.
 */
export const readMultipartForm = async <F>(
  request: FastifyRequest,
  reply: FastifyReply,
  reading: FormReading<F>,
): Promise<MultipartForm<F>> => {
  if (!isMultipart(request)) throw new CoreError("unsupported_media_type", "Send the form as multipart/form-data");
  const drop = reading.dropOversizedFile;
  beginUpload(
    reading.slots,
    request,
    reply,
    Math.max(drop?.maxBodyBytes ?? 0, reading.maxFileBytes + FORM_OVERHEAD_BYTES),
    reading.tooLarge,
  );
  const fields = new Map<string, string[]>();
  let file: MultipartForm<F>["file"] = null;
  let dropped: Error | undefined;
  let parts = 0;
  for await (const part of multipartParts(request, reading.maxFileBytes)) {
    const firstPart = parts++ === 0;
    if (part.type === "field") {
      if (part.truncated) throw new CoreError("payload_too_large", `The field ${part.name} is too long`);
      if (firstPart && reading.first) await reading.first.check(part.name === reading.first.name ? part.value : "");
      const values = fields.get(part.name);
      if (values) values.push(part.value);
      else fields.set(part.name, [part.value]);
      continue;
    }
    if (firstPart && reading.first) await reading.first.check("");
    if (part.name !== reading.fileField) throw badRequest(`The form has no file field ${part.name}`);
    await reading.beforeFile?.(fields);
    if (drop) {
      const kept = await keptUnlessOversized(part.stream, reading);
      if (kept === null) {
        dropped = reading.tooLarge();
        continue;
      }
      if (part.fileName !== "" || !isEmpty(kept)) file = { content: kept, name: part.fileName.slice(0, 255) };
      continue;
    }
    const content = await reading.sink(part.stream, reading.maxFileBytes, reading.tooLarge);
    // An empty file input sends a part with no name and no bytes: nothing was chosen.
    if (part.fileName !== "" || !isEmpty(content)) file = { content, name: part.fileName.slice(0, 255) };
  }
  if (file === null) await reading.beforeFile?.(fields);
  return dropped ? { fields, file, dropped } : { fields, file };
};

/**
 * The file through the sink, or null when it is past the limit: then the sink's input ends at the
 * limit and the rest of the part is read and dropped (busboy ends the part a byte past the limit),
 * so the parts after it can still be read.
 */
const keptUnlessOversized = async <F>(stream: BusboyFileStream, reading: FormReading<F>): Promise<F | null> => {
  const input = new PassThrough();
  let seen = 0;
  let over = false;
  stream.on("data", (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > reading.maxFileBytes) over = true;
    if (!over) input.write(chunk);
  });
  const ended = new Promise<void>((resolve, reject) => {
    stream.once("end", resolve);
    stream.once("error", reject);
  });
  stream.once("end", () => input.end());
  stream.once("error", (err) => input.destroy(err));
  const content = await reading.sink(input, reading.maxFileBytes, reading.tooLarge).catch((err: unknown) => {
    // The sink refusing the size itself is the same drop; anything else fails the form.
    if (over) return null;
    throw err;
  });
  await ended;
  return over ? null : content;
};

const isEmpty = (content: unknown): boolean =>
  (content instanceof Uint8Array && content.length === 0) ||
  (typeof content === "object" && content !== null && "bytes" in content && content.bytes === 0);
