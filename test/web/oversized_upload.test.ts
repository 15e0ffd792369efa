import Fastify from "fastify";
import t from "tap";
import { bufferUpload, multipartBodies, readMultipartForm, uploadSlots } from "../../adapters/uploads/mod.ts";
import { CoreError, isCoreError } from "../../core/errors/mod.ts";

/**
 * A page's upload with `dropOversizedFile`: a file past the limit is dropped and the form read to
 * its end, so the fields before and after it come back; one within the limit is kept; a body past
 * `maxBodyBytes` is refused before it is read.
 */
const LIMIT = 1024;
const app = Fastify();
multipartBodies(app);
app.post("/form", async (request, reply) => {
  try {
    const form = await readMultipartForm(request, reply, {
      slots: uploadSlots(),
      fileField: "image",
      maxFileBytes: LIMIT,
      tooLarge: () => new CoreError("payload_too_large", "too large"),
      sink: bufferUpload,
      dropOversizedFile: { maxBodyBytes: 64 * 1024 },
    });
    return {
      fields: Object.fromEntries(form.fields),
      file: form.file ? form.file.content.length : null,
      dropped: form.dropped?.message ?? null,
    };
  } catch (err) {
    if (isCoreError(err)) return reply.code(413).send({ refused: err.message });
    throw err;
  }
});
t.teardown(() => app.close());

const BOUNDARY = "----laurel-test";
const body = (fileBytes: number) =>
  Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="name"\r\n\r\nForklift\r\n`),
    Buffer.from(
      `--${BOUNDARY}\r\ncontent-disposition: form-data; name="image"; filename="a.png"\r\ncontent-type: image/png\r\n\r\n`,
    ),
    Buffer.alloc(fileBytes, 1),
    Buffer.from(
      `\r\n--${BOUNDARY}\r\ncontent-disposition: form-data; name="skills"\r\n\r\nsafety\r\n--${BOUNDARY}--\r\n`,
    ),
  ]);
const send = (payload: Buffer) =>
  app.inject({
    method: "POST",
    url: "/form",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    payload,
  });

t.test("a file past the limit is dropped; the fields before and after it are read", async (t) => {
  const answer = await send(body(LIMIT * 20));
  t.equal(answer.statusCode, 200);
  t.same(answer.json(), { fields: { name: ["Forklift"], skills: ["safety"] }, file: null, dropped: "too large" });
});

t.test("a file at the limit is kept", async (t) => {
  t.same((await send(body(LIMIT))).json(), {
    fields: { name: ["Forklift"], skills: ["safety"] },
    file: LIMIT,
    dropped: null,
  });
});

t.test("a body past maxBodyBytes is refused unread", async (t) => {
  const answer = await send(body(128 * 1024));
  t.equal(answer.statusCode, 413);
  t.same(answer.json(), { refused: "too large" });
});
