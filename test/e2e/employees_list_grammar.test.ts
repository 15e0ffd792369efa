import t from "tap";
import { apiClient, trpc } from "../support/badges.ts";
import { basic, startLaurel } from "../support/laurel.ts";

/** The employees list reads the list grammar the badge lists use: filter=k::v|..., filter[k]=v, sort=a|-b. */
t.test("filters and sorts in every form", async (t) => {
  const laurel = await startLaurel();
  t.teardown(() => laurel.close());
  const api = apiClient(laurel);
  const { organization, authorization_token } = await laurel.createOrganization("Lister");
  // Filtering by connection state is workforce data: the organization is authorized for it.
  await trpc(laurel, "workforce.authorize", { organization_id: organization.id, authorized: true });
  const auth = basic(authorization_token.token);
  const path = `/organizations/${organization.id}/employees`;
  const people = [
    ["ada@example.com", "Ada", "Lovelace", "E-1", "Blue", "R&D"],
    ["alan@example.com", "Alan", "Turing", "e-1", "Blue", "Ops"],
    ["grace@example.com", "Grace", "Hopper", "E-3", "Red", "R&D"],
    ["ada.b@example.com", "Ada", "Byron", "E-4", "Red", "Ops"],
  ];
  for (const [email, first_name, last_name, external_id, team, department] of people)
    t.equal(
      (await api("POST", path, auth, { email, first_name, last_name, external_id, team, department })).status,
      201,
    );
  const names = async (query: string): Promise<string[]> => {
    const res = await api("GET", `${path}?${query}`, auth);
    t.equal(res.status, 200, query);
    return res.body.data.map((e: { first_name: string; last_name: string }) => `${e.first_name} ${e.last_name}`);
  };
  t.same(await names("filter=team::blue|department::R%26D"), ["Ada Lovelace"], "filter=k::v|k::v");
  t.same(await names("filter[team]=Red&sort=last_name"), ["Ada Byron", "Grace Hopper"], "filter[k]=v");
  t.same(await names("name_or_email=ada&sort=-last_name"), ["Ada Lovelace", "Ada Byron"], "plain key, descending");
  t.same(await names(`name_or_email=${encodeURIComponent('"Ada Byron"')}`), ["Ada Byron"], "quoted: exact");
  t.same(await names("external_id=e-1"), ["Alan Turing"], "external_id is exact, case included");
  t.same(
    await names("filter=employee_state::created,pending&sort=first_name|-last_name"),
    ["Ada Lovelace", "Ada Byron", "Alan Turing", "Grace Hopper"],
    "sort=a|-b",
  );
  const bad = await api("GET", `${path}?filter=colour::blue&sort=shoe`, auth);
  t.equal(bad.status, 400);
  t.same(
    bad.body.data.errors.map((e: { field: string }) => e.field),
    ["filter", "sort"],
  );
  t.match(bad.body.data.errors[0].message, /known keys: name_or_email, employee_state/);
  t.equal((await api("GET", `${path}?employee_state=fired`, auth)).status, 400);
});
