import { notFound } from "../errors/mod.ts";
import { milestoneTemplateIds, pathwayProgress } from "./progress.ts";
import {
  PATHWAY_LIST,
  type PathwayRecord,
  type PathwayShown,
  type PathwayStore,
  type PathwayTemplateRef,
} from "./records.ts";

export interface MilestoneView {
  name: string;
  required: number;
  templates: PathwayTemplateRef[];
}

/** The public pathway page: its milestones in order with their templates, and the completion badge. */
export interface PathwayPageView {
  id: string;
  organization_id: string;
  organization_name: string;
  name: string;
  description: string;
  state: "published" | "archived";
  milestones: MilestoneView[];
  completion: PathwayTemplateRef | null;
}

export interface WalletMilestone extends MilestoneView {
  /** How many of its templates the earner holds. */
  held: number;
  done: boolean;
}

/** One pathway on the wallet: each milestone done or not, and what is next. */
export interface WalletPathway extends PathwayPageView {
  milestones: WalletMilestone[];
  /** How many milestones are done. */
  done: number;
  completed: boolean;
  /** The templates not held yet of the milestones not done yet, in milestone order, each once. */
  next: PathwayTemplateRef[];
}

const pageView = (shown: PathwayShown): PathwayPageView => {
  const { pathway: p } = shown;
  const byId = new Map(shown.templates.map((t) => [t.id.toLowerCase(), t]));
  const refs = (ids: readonly string[]) =>
    ids.flatMap((id) => {
      const t = byId.get(id.toLowerCase());
      return t ? [t] : [];
    });
  return {
    id: p.id,
    organization_id: p.organization_id,
    organization_name: shown.organization_name,
    name: p.name,
    description: p.description,
    state: p.state === "archived" ? "archived" : "published",
    milestones: p.milestones.map((m) => ({
      name: m.name,
      required: m.required,
      templates: refs(m.badge_template_ids),
    })),
    completion: byId.get(p.completion_badge_template_id.toLowerCase()) ?? null,
  };
};

/** The public page of a published or archived pathway; a draft or an unknown id is not found. */
export const publicPathway = async (store: Pick<PathwayStore, "shown">, id: string): Promise<PathwayPageView> => {
  const shown = await store.shown(id);
  if (!shown || shown.pathway.state === "draft") throw notFound("Pathway");
  return pageView(shown);
};

/**
 * The wallet's pathways: each published pathway the account has started (it holds at least one of
 * its milestones' templates, or completed it), with each milestone done or not and what is next;
 * completed ones marked so (a completion is never taken back, even if a badge is revoked later).
 * Unfinished first, then completed; by name within each.
 */
export const walletPathways = async (
  store: Pick<PathwayStore, "forAccount">,
  userId: string,
): Promise<WalletPathway[]> => {
  const rows = await store.forAccount(userId);
  const shown = rows.flatMap((row): WalletPathway[] => {
    const { pathway } = row;
    if (pathway.state !== "published") return [];
    const held = new Set(row.held_template_ids.map((id) => id.toLowerCase()));
    const named = milestoneTemplateIds(pathway.milestones);
    const started = named.some((id) => held.has(id.toLowerCase()));
    if (!started && row.completed_at === null) return [];
    const progress = pathwayProgress(pathway.milestones, held);
    const view = pageView(row);
    const milestones = view.milestones.map((m, i) => {
      const p = progress.milestones[i] ?? { held: 0, done: false };
      return { ...m, held: p.held, done: p.done };
    });
    const next = new Map<string, (typeof view.milestones)[number]["templates"][number]>();
    for (const m of milestones)
      if (!m.done) for (const t of m.templates) if (!held.has(t.id.toLowerCase())) next.set(t.id, t);
    const completed = row.completed_at !== null || progress.complete;
    return [{ ...view, milestones, done: progress.done, completed, next: completed ? [] : [...next.values()] }];
  });
  return shown.sort((a, b) => Number(a.completed) - Number(b.completed) || a.name.localeCompare(b.name));
};

/** The most pathways an organization's public page lists. */
export const ORGANIZATION_PATHWAYS_MAX = 50;

/** An organization's published pathways, as its public page lists them: newest first. */
export const organizationPathways = async (
  store: Pick<PathwayStore, "list">,
  organizationId: string,
): Promise<PathwayRecord[]> => {
  const query = {
    filters: { state: { kind: "values" as const, values: ["published"] } },
    sort: [...PATHWAY_LIST.defaultSort],
    page: 1,
  };
  const { items } = await store.list(organizationId, query, { page: 1, per: ORGANIZATION_PATHWAYS_MAX, offset: 0 });
  return items;
};
