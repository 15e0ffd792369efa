/**
 * The first columns of a table of an organization's own records: a UUID key, and the organization,
 * whose deletion deletes the row. Migrations that ran use it, so it is never edited: a table keyed
 * otherwise spells its columns out.
 */
export const ORGANIZATION_RECORD_KEYS = `id uuid primary key,
      organization_id uuid not null references organizations(id) on delete cascade`;
