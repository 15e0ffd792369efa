export { consoleMembers } from "./console/members_port.ts";
export { exportLink, writeEarnerExport } from "./earner_export.ts";
export type { PageAnswer } from "./errors.ts";
export { PAGE_FOR_CODE, pageAnswer } from "./errors.ts";
export { renderPage, safeUrl } from "./html.ts";
export { badgePage } from "./pages/badge_page.ts";
export { SESSION_COOKIE, webPlugin } from "./plugin.ts";
export { webUrls } from "./urls.ts";
export type { WebConnectDeps, WebDeps } from "./web_deps.ts";
