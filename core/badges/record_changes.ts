import { validationFailed } from "../errors/mod.ts";
import { type BadgeAction, transitionBadge } from "./badge_state.ts";
import type { TemplateCreateBody, TemplateUpdateBody } from "./input_schemas.ts";
import type { BadgeRecord, BadgeTemplateRecord } from "./records.ts";
import { type TemplateAction, templateStateFromUpdate, transitionTemplate } from "./template_state.ts";

/** Rows after a change, built here so that adapters only persist them (and record the event). */

/**
 * A template's image change: the name of an image just stored (`<sha256>.<png|svg>`), `null` to
 * drop the stored one, `undefined` to keep it. The adapter reads and stores the upload (`image` of
 * the body, a data URI or a file part); core only decides which of `image` and `image_url` holds.
 */
export type TemplateImageChange = string | null | undefined;

/** A body may give a new stored image or an outside address, not both. */
export const checkTemplateImages = (image: TemplateImageChange, imageUrl: string | null | undefined): void => {
  if (typeof image === "string" && typeof imageUrl === "string") {
    throw validationFailed("Validation failed", [
      { field: "image", message: "give either image or image_url, not both" },
    ]);
  }
};

/** The template's `image` and `image_url` after a change: a stored image replaces an outside address and back. */
const imageFields = (
  current: Pick<BadgeTemplateRecord, "image" | "image_url">,
  image: TemplateImageChange,
  imageUrl: string | null | undefined,
): Pick<BadgeTemplateRecord, "image" | "image_url"> => {
  checkTemplateImages(image, imageUrl);
  if (typeof image === "string") return { image, image_url: null };
  if (image === null) return { image: null, image_url: imageUrl === undefined ? current.image_url : imageUrl };
  if (imageUrl === undefined) return { image: current.image, image_url: current.image_url };
  // `image_url: null` clears the template's image, whichever kind it had.
  return { image: null, image_url: imageUrl };
};

/** Text as written, or null when absent or blank. */
const textOrNull = (text: string | null | undefined): string | null => (text?.trim() ? text.trim() : null);

/** Tags trimmed, each kept once whatever its case (the filter ignores case), in the order first given. */
export const reportingTags = (tags: readonly string[]): string[] => {
  const seen = new Set<string>();
  return tags
    .map((tag) => tag.trim())
    .filter((tag) => tag !== "" && !seen.has(tag.toLowerCase()) && seen.add(tag.toLowerCase()));
};

export const newTemplateRecord = (
  body: TemplateCreateBody,
  ctx: { id: string; organization_id: string; now: Date; image?: string | null },
): BadgeTemplateRecord => ({
  id: ctx.id,
  organization_id: ctx.organization_id,
  name: body.name.trim(),
  description: body.description,
  skills: [...new Set((body.skills ?? []).map((s) => s.trim()))],
  reporting_tags: reportingTags(body.reporting_tags ?? []),
  notification_message: textOrNull(body.notification_message),
  image: ctx.image ?? null,
  image_url: ctx.image ? null : (body.image_url ?? null),
  url: body.url ?? null,
  vanity_slug: body.vanity_slug ?? null,
  state: body.state ?? "draft",
  public: body.public ?? true,
  criteria_url: body.criteria_url ?? null,
  global_activity_url: body.global_activity_url ?? null,
  alignments: (body.alignments ?? []).map((a) => ({ name: a.name, url: a.url, description: a.description ?? null })),
  allow_duplicate_badges: body.allow_duplicate_badges ?? false,
  badges_count: 0,
  created_at: ctx.now,
  updated_at: ctx.now,
});

/** Applies a PUT: absent keys keep their value, `null` clears a nullable one. */
export const applyTemplateUpdate = (
  t: BadgeTemplateRecord,
  body: TemplateUpdateBody,
  now: Date,
  image: TemplateImageChange = undefined,
): BadgeTemplateRecord => {
  const state = templateStateFromUpdate(t.state, body.state);
  const images = imageFields(t, image, body.image_url);
  if (body.name !== undefined && body.name.trim() === "") {
    throw validationFailed("Validation failed", [{ field: "name", message: "must not be blank" }]);
  }
  const pick = <K extends keyof TemplateUpdateBody & keyof BadgeTemplateRecord>(
    k: K,
    current: BadgeTemplateRecord[K],
  ) => (body[k] === undefined ? current : body[k]) as BadgeTemplateRecord[K];
  return {
    ...t,
    name: body.name?.trim() ?? t.name,
    description: pick("description", t.description),
    skills: body.skills ? [...new Set(body.skills.map((s) => s.trim()))] : t.skills,
    reporting_tags: body.reporting_tags ? reportingTags(body.reporting_tags) : t.reporting_tags,
    notification_message:
      body.notification_message === undefined ? t.notification_message : textOrNull(body.notification_message),
    ...images,
    url: pick("url", t.url),
    vanity_slug: pick("vanity_slug", t.vanity_slug),
    state,
    public: pick("public", t.public),
    criteria_url: pick("criteria_url", t.criteria_url),
    global_activity_url: pick("global_activity_url", t.global_activity_url),
    alignments: body.alignments
      ? body.alignments.map((a) => ({ name: a.name, url: a.url, description: a.description ?? null }))
      : t.alignments,
    allow_duplicate_badges: pick("allow_duplicate_badges", t.allow_duplicate_badges),
    updated_at: now,
  };
};

/** Whether a PUT changed anything but `updated_at`: an unchanged template records no event. */
export const templateChanged = (before: BadgeTemplateRecord, after: BadgeTemplateRecord): boolean => {
  const { updated_at: _a, ...b } = before;
  const { updated_at: _b, ...a } = after;
  return JSON.stringify(a) !== JSON.stringify(b);
};

/**
 * A template that has issued badges cannot be deleted: the badges (and their hosted records)
 * point at it. Archiving is the way to retire it.
 */
export const checkTemplateDeletable = (t: Pick<BadgeTemplateRecord, "badges_count">): void => {
  if (t.badges_count > 0) {
    throw validationFailed("This badge template has issued badges; archive it instead", [
      { field: "badges_count", message: `${t.badges_count} badges were issued from this template` },
    ]);
  }
};

export const applyTemplateAction = (t: BadgeTemplateRecord, action: TemplateAction, now: Date): BadgeTemplateRecord => {
  const state = transitionTemplate(t.state, action);
  return { ...t, state, updated_at: now };
};

/**
 * The badge after an action. A replacement's id must be given with `replace` so the old row
 * points at the new one (`replacement_badge_id`).
 */
export const applyBadgeAction = (
  b: BadgeRecord,
  action: BadgeAction,
  now: Date,
  replacementBadgeId: string | null = null,
): BadgeRecord => {
  const state = transitionBadge(b.state, action);
  return {
    ...b,
    state,
    revocation_reason: action.type === "revoke" ? action.reason.trim() : b.revocation_reason,
    replacement_badge_id: action.type === "replace" ? replacementBadgeId : b.replacement_badge_id,
    state_updated_at: now,
    updated_at: now,
  };
};

/** Privacy is the earner's choice and independent of state (event `badge.privacy.changed`). */
export const setBadgePrivacy = (b: BadgeRecord, isPublic: boolean, now: Date): BadgeRecord => ({
  ...b,
  public: isPublic,
  updated_at: now,
});
