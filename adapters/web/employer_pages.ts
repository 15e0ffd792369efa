import type { FastifyInstance, FastifyRequest } from "fastify";
import type { VNode } from "preact";
import { decideConnection, type EmployerConnection } from "../../core/workforce/mod.ts";
import { html } from "./html.ts";
import { csrfField, type Frame } from "./layout.ts";
import { uuidParam } from "./routes_public.ts";
import { doneNotice } from "./sent.ts";
import type { WebKit } from "./web_deps.ts";

const CONNECTION_NOTICES: Record<string, string> = {
  connected: "Connected: your employer now sees your accepted public badges.",
  declined: "Connection declined: your employer does not see your badges.",
  disconnected: "Disconnected: your employer no longer sees your badges.",
};

/** The wallet's notice after a connection decision, if that is what `done` names. */
export const connectionNotice = (request: FastifyRequest): string | null => doneNotice(CONNECTION_NOTICES, request);

const button = (frame: Frame, id: string, action: string, label: string, cls: string): VNode =>
  html`<form method="post" action=${`/wallet/employers/${id}/${action}`} class="inline">${csrfField(frame.csrf)}
    <button type="submit" class=${cls}>${label}</button></form>`;

/** The wallet's section on employers: a prompt per pending connection, the state of the others. */
export const employersSection = (frame: Frame, connections: EmployerConnection[]): VNode | null => {
  if (connections.length === 0) return null;
  return html`<section class="card" aria-labelledby="employers-h"><h2 id="employers-h">Employers</h2>
    <ul class="plain employers">${connections.map(({ record, employer }) => {
      const id = record.id;
      const name = employer.name;
      if (record.employee_state === "pending")
        return html`<li data-employer=${employer.id}><p><strong>${name}</strong> lists you as an employee (${record.email}). Connect to let ${name} see your accepted public badges?</p>
          <div class="actions">${button(frame, id, "accept", `Connect to ${name}`, "")}${button(frame, id, "reject", "Not now", "danger")}</div></li>`;
      if (record.employee_state === "accepted")
        return html`<li data-employer=${employer.id}><p><strong>${name}</strong>: connected; it sees your accepted public badges.</p>
          <div class="actions">${button(frame, id, "disconnect", `Disconnect from ${name}`, "danger")}</div></li>`;
      return html`<li data-employer=${employer.id}><p><strong>${name}</strong>: not connected.</p>
          <div class="actions">${button(frame, id, "accept", `Connect to ${name}`, "secondary")}</div></li>`;
    })}</ul></section>`;
};

const ACTIONS = { accept: "connected", reject: "declined", disconnect: "disconnected" } as const;

/** The earner's decisions on an employer's connection. */
export const employerRoutes = (kit: WebKit) => async (app: FastifyInstance) => {
  const { deps } = kit;
  for (const [action, done] of Object.entries(ACTIONS) as Array<[keyof typeof ACTIONS, string]>) {
    app.post(`/wallet/employers/:id/${action}`, async (request, reply) => {
      const id = uuidParam(request);
      if (!request.earner) return reply.redirect("/sign_in?next=%2Fwallet", 303);
      const ctx = deps.context();
      await decideConnection(deps.connections, ctx, deps.earners.issuing.urls, request.earner.user.id, id, action);
      return reply.redirect(`/wallet?done=${done}`, 303);
    });
  }
};
