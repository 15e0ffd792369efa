import t from "tap";
import { apiClient, eventRows } from "../support/badges.ts";
import { basic, startLaurel } from "../support/laurel.ts";

/** The same employee statements on the embedded PGlite database (`npm start` without DATABASE_URL). */
t.test("create, batch upsert, list, update, delete on PGlite", async (t) => {
  const laurel = await startLaurel({ database: "pglite" });
  t.teardown(() => laurel.close());
  const api = apiClient(laurel);
  const { organization, authorization_token } = await laurel.createOrganization("Embedded");
  const auth = basic(authorization_token.token);
  const path = `/organizations/${organization.id}/employees`;
  const person = (external_id: string, extra: Record<string, unknown> = {}) => ({
    email: `${external_id}@example.com`,
    first_name: "P",
    last_name: external_id,
    external_id,
    ...extra,
  });
  const created = await api(
    "POST",
    path,
    auth,
    person("a", { employment_histories: [{ current: true, employer_job_title: "Dev" }] }),
  );
  t.equal(created.status, 201, JSON.stringify(created.body));
  const batch = await api("POST", `${path}/batch`, auth, {
    employees: [person("a", { team: "T" }), person("b"), person("a", { team: "U" })],
  });
  t.same(
    batch.body.data.map((r: { status: string }) => r.status),
    ["updated", "created", "failed"],
  );
  t.equal((await api("POST", path, auth, person("b"))).status, 422, "external_id is unique");
  const list = await api("GET", `${path}?team=t&sort=-last_name`, auth);
  t.same(
    list.body.data.map((e: { external_id: string }) => e.external_id),
    ["a"],
  );
  t.equal((await api("PUT", `${path}/${created.body.data.id}`, auth, { external_id: "b" })).status, 422);
  t.equal((await api("DELETE", `${path}/${created.body.data.id}`, auth)).status, 204);
  t.same(
    (await eventRows(laurel, organization.id)).map((e) => e.event_type),
    ["employment.created", "employment.updated", "employment.created", "employment.deleted"],
  );
});
