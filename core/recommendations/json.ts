import { type Static, Type } from "typebox";
import { Nullable, type ShapeUrls, templateImageUrl } from "../badges/mod.ts";
import { isoMillis, isoMillisOrNull } from "../shared/mod.ts";
import { RECOMMENDATION_STATES, type RecommendationView, recommendationState } from "./records.ts";

const Time = Type.String({ format: "date-time" });

/** A recommendation as the API answers it. */
export const Recommendation = Type.Object({
  id: Type.String({ format: "uuid" }),
  organization_id: Type.String({ format: "uuid" }),
  badge_template: Type.Object({
    id: Type.String({ format: "uuid" }),
    name: Type.String(),
    description: Type.String(),
    image_url: Nullable(Type.String()),
    criteria_url: Nullable(Type.String()),
  }),
  recipient_email: Type.String(),
  employee_id: Nullable(Type.String({ format: "uuid" })),
  message: Nullable(Type.String()),
  state: Type.Enum(RECOMMENDATION_STATES),
  created_at: Time,
  /** When a live badge of the template was first issued to the address; null while none is. */
  fulfilled_at: Nullable(Time),
  dismissed_at: Nullable(Time),
  /** When the mail telling the person was queued; null when the organization's mail budget was spent. */
  notified_at: Nullable(Time),
});
export type Recommendation = Static<typeof Recommendation>;

export const recommendationJson = (r: RecommendationView, urls: ShapeUrls): Recommendation => ({
  id: r.id,
  organization_id: r.organization_id,
  badge_template: {
    id: r.badge_template_id,
    name: r.badge_template_name,
    description: r.badge_template_description,
    image_url: templateImageUrl(urls, { image: r.badge_template_image, image_url: r.badge_template_image_url }),
    criteria_url: r.badge_template_criteria_url,
  },
  recipient_email: r.recipient_email,
  employee_id: r.employee_id,
  message: r.message,
  state: recommendationState(r),
  created_at: isoMillis(r.created_at),
  fulfilled_at: isoMillisOrNull(r.fulfilled_at),
  dismissed_at: isoMillisOrNull(r.dismissed_at),
  notified_at: isoMillisOrNull(r.notified_at),
});
