import SerializerSelector from "@fastify/fast-json-stringify-compiler";
import t from "tap";
import { Type } from "typebox";
import { sharedSerializers } from "../../adapters/rest/serializers.ts";
import { strictValidatorCompiler } from "../../adapters/rest/validator.ts";

/**
 * A server compiles each response schema object once (most routes share the one error body under
 * several statuses), and what it compiled writes exactly what Fastify's own serializer writes; a
 * request schema compiled once still checks each route's part as that part is checked.
 */

const ErrorBody = Type.Object({ message: Type.String(), code: Type.Integer() });
const Item = Type.Object({ id: Type.String(), extra: Type.Optional(Type.Boolean()) });

t.test("one serializer per response schema object, writing what Fastify's own writes", async (t) => {
  const compile = sharedSerializers(undefined, undefined);
  const own = SerializerSelector()(undefined, undefined);
  const route = (url: string, httpStatus: string, schema: object) => ({ method: "GET", url, httpStatus, schema });
  const a400 = compile(route("/a", "400", ErrorBody));
  t.equal(compile(route("/b", "404", ErrorBody)), a400, "the same schema under another route and status");
  const item = compile(route("/a", "200", Item));
  t.not(item, a400, "another schema has its own");
  t.not(compile(route("/c", "200", Type.Object({ id: Type.String() }))), item, "an equal but distinct object too");
  const value = { message: "nope", code: 4, secret: "dropped" };
  t.equal(a400(value), own(route("/a", "400", ErrorBody))(value));
  t.equal(a400(value), '{"message":"nope","code":4}', "properties outside the schema are not written");
  t.equal(item({ id: "x" }), '{"id":"x"}');
  t.not(sharedSerializers(undefined, undefined)(route("/a", "400", ErrorBody)), a400, "a server's cache is its own");
});

t.test("a request schema shared by routes checks alike for each, by its part", async (t) => {
  const Params = Type.Object({ page: Type.Integer() });
  const first = strictValidatorCompiler({ schema: Params, method: "GET", url: "/a", httpPart: "querystring" });
  const second = strictValidatorCompiler({ schema: Params, method: "GET", url: "/b", httpPart: "querystring" });
  for (const check of [first, second]) {
    t.same(check({ page: "2" }), { value: { page: 2 } }, "a plain integer is converted");
    t.ok((check({ page: "1.5" }) as { error?: unknown[] }).error, "1.5 is refused");
  }
  const body = strictValidatorCompiler({ schema: Params, method: "POST", url: "/a", httpPart: "body" });
  t.ok((body({ page: "2" }) as { error?: unknown[] }).error, "a body is never converted, with the same schema");
});
