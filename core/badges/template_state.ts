import { type CoreError, validationFailed } from "../errors/mod.ts";

export const TEMPLATE_STATES = ["draft", "active", "archived"] as const;
export type TemplateState = (typeof TEMPLATE_STATES)[number];

/**
 * `activate` comes from a PUT carrying `state: "active"`; `archive` / `unarchive` from their own
 * PUT endpoints. `deactivate` is a PUT asking for `state: "draft"`, kept as an action so the
 * refusal has one home instead of being an adapter's special case.
 */
export const TEMPLATE_ACTIONS = ["activate", "deactivate", "archive", "unarchive"] as const;
export type TemplateAction = (typeof TEMPLATE_ACTIONS)[number];

const illegal = (state: TemplateState, action: TemplateAction, why: string): CoreError =>
  validationFailed(
    `Cannot ${action} a badge template that is ${state}: ${why}`,
    [{ field: "state", message: `cannot ${action} a ${state} badge template` }],
    { name: "badge_template_transition", state, action },
  );

/**
 * Next state of a template; throws a 422. Activating an active template is a no-op, so a PUT that
 * repeats the current state succeeds. Badges already issued from a template keep pointing at it,
 * so an activated template never returns to draft. Unarchiving lands on `active`: a template
 * only reaches `archived` after being usable, or as a draft that is discarded (which then cannot
 * issue until someone unarchives it on purpose).
 */
export const transitionTemplate = (state: TemplateState, action: TemplateAction): TemplateState => {
  switch (action) {
    case "activate":
      if (state === "archived") throw illegal(state, action, "unarchive it instead");
      return "active";
    case "deactivate":
      if (state === "draft") return "draft";
      throw illegal(state, action, "a template that has been active cannot return to draft");
    case "archive":
      if (state === "archived") throw illegal(state, action, "it is already archived");
      return "archived";
    case "unarchive":
      if (state !== "archived") throw illegal(state, action, "it is not archived");
      return "active";
  }
};

/**
 * The `state` field of a template PUT, mapped onto the actions above. Asking for the current
 * state is always fine; asking for `archived` through PUT is the same as the archive endpoint.
 */
export const templateStateFromUpdate = (
  current: TemplateState,
  requested: TemplateState | undefined,
): TemplateState => {
  if (requested === undefined || requested === current) return current;
  const action: TemplateAction =
    requested === "active"
      ? current === "archived"
        ? "unarchive"
        : "activate"
      : requested === "archived"
        ? "archive"
        : "deactivate";
  return transitionTemplate(current, action);
};
