import type { MigrationObject } from "@mikro-orm/core";
import { M20261122001Foundation } from "./m20261122_001_foundation.ts";
import { M20261122002Events } from "./m20261122_002_events.ts";
import { M20261122003Badges } from "./m20261122_003_badges.ts";
import { M20261122004Webhooks } from "./m20261122_004_webhooks.ts";
import { M20261122005RelayCursors } from "./m20261122_005_relay_cursors.ts";
import { M20261124006DeliveryCascades } from "./m20261124_006_delivery_cascades.ts";
import { M20261125007ApplicationCeilings } from "./m20261125_007_application_ceilings.ts";
import { M20261125008RateLimits } from "./m20261125_008_rate_limits.ts";
import { M20261125009MailOutbox } from "./m20261125_009_mail_outbox.ts";
import { M20261125010EarnerWeb } from "./m20261125_010_earner_web.ts";
import { M20261125011Employees } from "./m20261125_011_employees.ts";
import { M20261125012ListFilters } from "./m20261125_012_list_filters.ts";
import { M20261125013Connect } from "./m20261125_013_connect.ts";
import { M20261126014ExternalBadges } from "./m20261126_014_external_badges.ts";
import { M20261126015EmployeeListKeys } from "./m20261126_015_employee_list_keys.ts";
import { M20261127017BadgeAcceptTokens } from "./m20261127_017_badge_accept_tokens.ts";
import { M20261127019MailNotify } from "./m20261127_019_mail_notify.ts";
import { M20261127020Members } from "./m20261127_020_members.ts";
import { M20261127021Images } from "./m20261127_021_images.ts";
import { M20261127022StatusLists } from "./m20261127_022_status_lists.ts";
import { M20261127026EarnerExports } from "./m20261127_026_earner_exports.ts";

/** Every migration, in order. A new one is appended here (names never change once released). */
export const MIGRATIONS: MigrationObject[] = [
  { name: "m20261122_001_foundation", class: M20261122001Foundation },
  { name: "m20261122_002_events", class: M20261122002Events },
  { name: "m20261122_003_badges", class: M20261122003Badges },
  { name: "m20261122_004_webhooks", class: M20261122004Webhooks },
  { name: "m20261122_005_relay_cursors", class: M20261122005RelayCursors },
  { name: "m20261124_006_delivery_cascades", class: M20261124006DeliveryCascades },
  { name: "m20261125_007_application_ceilings", class: M20261125007ApplicationCeilings },
  { name: "m20261125_008_rate_limits", class: M20261125008RateLimits },
  { name: "m20261125_009_mail_outbox", class: M20261125009MailOutbox },
  { name: "m20261125_010_earner_web", class: M20261125010EarnerWeb },
  { name: "m20261125_011_employees", class: M20261125011Employees },
  { name: "m20261125_012_list_filters", class: M20261125012ListFilters },
  { name: "m20261125_013_connect", class: M20261125013Connect },
  { name: "m20261126_014_external_badges", class: M20261126014ExternalBadges },
  { name: "m20261126_015_employee_list_keys", class: M20261126015EmployeeListKeys },
  { name: "m20261127_017_badge_accept_tokens", class: M20261127017BadgeAcceptTokens },
  { name: "m20261127_019_mail_notify", class: M20261127019MailNotify },
  { name: "m20261127_020_members", class: M20261127020Members },
  { name: "m20261127_021_images", class: M20261127021Images },
  { name: "m20261127_022_status_lists", class: M20261127022StatusLists },
  { name: "m20261127_026_earner_exports", class: M20261127026EarnerExports },
];
