import { Migration } from "@mikro-orm/migrations";

/** A pathway's setting: recommend an earner's next milestone's templates (off unless set). */
export class M20261207046PathwayRecommendNext extends Migration {
  override async up(): Promise<void> {
    this.addSql("alter table pathways add column recommend_next boolean not null default false");
  }

  override async down(): Promise<void> {
    this.addSql("alter table pathways drop column recommend_next");
  }
}
