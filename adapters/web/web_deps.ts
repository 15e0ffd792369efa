import type { FastifyReply, FastifyRequest } from "fastify";
import type { VNode } from "preact";
import type { ConnectStore } from "../../core/connect/mod.ts";
import type { OAuthApplicationRecord, SecretBox } from "../../core/credentials/mod.ts";
import type { EarnerContext, EarnerDeps, ExportDeps } from "../../core/earners/mod.ts";
import type { EndorsementStore } from "../../core/endorsements/mod.ts";
import type { MailOutbox } from "../../core/mail/mod.ts";
import type { PlatformRecord } from "../../core/ob_api/mod.ts";
import type { PathwayStore } from "../../core/pathways/mod.ts";
import type { RecommendationStore } from "../../core/recommendations/mod.ts";
import type { ConnectionStore, ExternalBadgeDeps } from "../../core/workforce/mod.ts";
import type { BadgeImageBaker } from "../obi/mod.ts";
import type { UploadSlots } from "../uploads/mod.ts";
import type { ConsoleDeps } from "./console/console_deps.ts";
import type { EarnerMail } from "./earner_mail.ts";
import type { Frame } from "./layout.ts";
import type { PageCache } from "./page_cache.ts";
import type { WebUrls } from "./urls.ts";

/** What the app hands the web pages. */
export interface WebDeps {
  /** `PUBLIC_URL`: where pages are served, no trailing slash. */
  publicUrl: string;
  /** `BASE_URL`: the hosted Open Badges records live under it. */
  apiBase: string;
  earners: EarnerDeps;
  /** Employee records and the accounts they connect to. */
  connections: ConnectionStore;
  clock: () => Date;
  /** A fresh context for one use case (time, ids, tokens). */
  context(): EarnerContext;
  /** The earner pages' mails: written to the outbox with these ids. */
  mail: { outbox: Pick<MailOutbox, "enqueue">; newId: () => string };
  sha256Hex(input: string): string;
  /** Recommendations to the earner's addresses, shown and dismissed on the wallet; absent: not offered. */
  recommendations?: RecommendationStore;
  /** Pathways: their public pages, the organization page's list and the wallet's "Your pathways"; absent: not offered. */
  pathways?: Pick<PathwayStore, "shown" | "forAccount" | "list">;
  /** Badges from other issuers on the wallet; absent: not offered. */
  externalBadges?: ExternalBadgeDeps;
  /** The authorization endpoint and connected applications; absent: not offered. */
  connect?: WebConnectDeps;
  /** The organization console; absent: not offered. */
  console?: ConsoleDeps;
  /** Badge images with their records baked in ("Download image"); absent: not offered. */
  bakedImages?: BadgeImageBaker;
  /** The earner's export ("Download everything"), written by the workers; absent: not offered. */
  exports?: ExportDeps;
  /** Subscribes to invalidations of hosted records; without it badge pages are not cached. */
  onHostedInvalidation?: (listener: (kind: string, id?: string) => void) => void;
  /** The process's upload slots, shared with the API's imports; absent: a set of this adapter's own. */
  uploads?: UploadSlots;
  /** Accepted endorsements, shown on badge and organization pages; absent: none shown. */
  endorsements?: Pick<EndorsementStore, "accepted">;
}

/** What every route of the web adapter shares. */
export interface WebKit {
  deps: WebDeps;
  urls: WebUrls;
  mail: EarnerMail;
  /** Badge pages as sent to visitors without a session; null: not cached. */
  pages: PageCache | null;
  /** Uploads read at once (imports, images): one more is answered 503. */
  uploads: UploadSlots;
  notFoundPage(frame: Frame): VNode;
  frame(request: FastifyRequest, reply: FastifyReply, title: string): Frame;
  page(reply: FastifyReply, status: number, page: VNode): FastifyReply;
  sessionCookie(reply: FastifyReply, token: string): FastifyReply;
  clearSession(reply: FastifyReply): FastifyReply;
}

export interface WebConnectDeps {
  store: ConnectStore;
  secrets: Pick<SecretBox, "newSecret" | "digest">;
  /** The path of `{auth_url}` on this server ("" at the root). */
  authPath: string;
  application(clientId: string): Promise<OAuthApplicationRecord | null>;
  /** A platform registered through the Open Badges API; absent, only applications connect. */
  platform?(clientId: string): Promise<PlatformRecord | null>;
  organizationName(id: string): Promise<string | null>;
}
