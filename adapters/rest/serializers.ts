import SerializerSelector from "@fastify/fast-json-stringify-compiler";
import type { FastifyServerOptions } from "fastify";

type BuildSerializer = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]>["buildSerializer"]
>;

/**
 * Fastify's own response serializers (fast-json-stringify), each schema object compiled once per
 * server: most routes answer their errors with the one `ErrorBody` schema under four to seven
 * statuses, and Fastify alone compiles it again for every route and status, the largest part of
 * a server's start.
 */
export const sharedSerializers: BuildSerializer = (externalSchemas, serializerOptions) => {
  const compile = SerializerSelector()(externalSchemas, serializerOptions);
  const compiled = new WeakMap<object, ReturnType<typeof compile>>();
  return (route) => {
    if (typeof route.schema !== "object" || route.schema === null) return compile(route);
    const known = compiled.get(route.schema);
    if (known) return known;
    const serializer = compile(route);
    compiled.set(route.schema, serializer);
    return serializer;
  };
};
