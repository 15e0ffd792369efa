import { Migration } from "@mikro-orm/migrations";

/**
 * The subject of Open Badges 3.0 credentials (`credentialSubject.id`, the JWT's `sub`): a random
 * UUID held by each earner account, and by each badge a copy fixed at issue, so that what a
 * credential names never changes once a verifier has recorded it (docs/decisions.md).
 *
 * Existing badges take their account's subject; the badges of an address with no account share
 * one new subject per address, as badges issued to it from now on will.
 */
export class M20261207036CredentialSubjects extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table users add column subject_id uuid not null default gen_random_uuid()");
    this.addSql("alter table badges add column subject_id uuid not null default gen_random_uuid()");
    this.addSql("update badges b set subject_id = u.subject_id from users u where u.id = b.user_id");
    this.addSql(`update badges b set subject_id = s.subject_id
      from (select recipient_email_key, gen_random_uuid() as subject_id from badges where user_id is null
            group by recipient_email_key) s
      where b.user_id is null and b.recipient_email_key = s.recipient_email_key`);
  }

  override async down(): Promise<void> {
    this.addSql("alter table badges drop column subject_id");
    this.addSql("alter table users drop column subject_id");
  }
}
