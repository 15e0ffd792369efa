import { type Static, type TSchema, Type } from "typebox";
import { perQuery } from "../../core/listing/mod.ts";
import {
  MAX_PAGE,
  PageMetadata,
  type PageMetadata as PageMetadataT,
  type PageRequest,
  pageRequest,
} from "../../core/shared/mod.ts";

/** `{ data, metadata: {} }` for one resource (docs/interface.md, Conventions). */
export const One = <T extends TSchema>(data: T) => Type.Object({ data, metadata: Type.Object({}) });

/** `{ data: [...], metadata: page }` for a list (docs/interface.md, Conventions). */
export const Many = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item), metadata: PageMetadata });

export const one = <T>(data: T): { data: T; metadata: Record<string, never> } => ({ data, metadata: {} });

export const many = <T>(data: T[], metadata: PageMetadataT): { data: T[]; metadata: PageMetadataT } => ({
  data,
  metadata,
});

/** The absolute address of another page of the list at `requestUrl` (path and query as received). */
export const pageUrlFor =
  (origin: string, requestUrl: string) =>
  (page: number): string => {
    const url = new URL(requestUrl, origin);
    url.searchParams.set("page", String(page));
    return url.toString();
  };

export const PageQuery = Type.Object(
  { page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE })), ...perQuery },
  { additionalProperties: false },
);

/** The page a `PageQuery` asks for: `per` or else its alias `page_size`. */
export const pageOf = (query: Static<typeof PageQuery>): PageRequest =>
  pageRequest(query.page, query.per ?? query.page_size);

export const OrganizationParams = Type.Object({ organization_id: Type.String({ format: "uuid" }) });

/** For routes whose JSON body is optional (token creation and rotation): no body reads as `{}`. */
export const optionalBody = async (request: { body: unknown }): Promise<void> => {
  if (request.body === undefined || request.body === null) request.body = {};
};
