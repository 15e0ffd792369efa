import t from "tap";
import { apiClient, trpc } from "../support/badges.ts";
import { basic, startLaurel } from "../support/laurel.ts";

/**
 * The employees list's `total_count` for the state, department and team filters comes from
 * per-group counters the database keeps on every write. After creates, a batch upsert, updates
 * moving records between groups, connection-state changes and deletes, every combination of those
 * filters must count exactly what a count of the records gives, in both organizations.
 */
t.test("total_count from the counters equals the records after every kind of write", async (t) => {
  const laurel = await startLaurel();
  t.teardown(() => laurel.close());
  const api = apiClient(laurel);
  const orgs = await Promise.all(["Counted", "Other"].map((n) => laurel.createOrganization(n)));
  // Filtering by connection state is workforce data: the organizations are authorized for it.
  for (const { organization } of orgs)
    await trpc(laurel, "workforce.authorize", { organization_id: organization.id, authorized: true });
  const TEAMS = ["Blue", "red", null] as const;
  const DEPTS = ["R&D", "Ops", ""] as const;

  for (const [o, { organization, authorization_token }] of orgs.entries()) {
    const auth = basic(authorization_token.token);
    const path = `/organizations/${organization.id}/employees`;
    const person = (i: number) => ({
      email: `p${i}@org${o}.example`,
      first_name: "P",
      last_name: `N${i}`,
      external_id: `X-${i}`,
      department: DEPTS[i % 3],
      ...(TEAMS[i % 3] === null ? {} : { team: TEAMS[(i + o) % 3] ?? undefined }),
    });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await api("POST", path, auth, person(i))).body.data.id);
    const batch = await api("POST", `${path}/batch`, auth, {
      employees: [...Array.from({ length: 12 }, (_, i) => person(i + 4)), { external_id: "bad" }],
    });
    t.equal(batch.status, 200);
    // Moves between groups, a no-op update, deletes.
    await api("PUT", `${path}/${ids[0]}`, auth, { department: "ops", team: "RED" });
    await api("PUT", `${path}/${ids[1]}`, auth, { team: null });
    await api("PUT", `${path}/${ids[2]}`, auth, { first_name: "Renamed" });
    await api("DELETE", `${path}/${ids[3]}`, auth);
  }
  // Connection states move by the earner's actions elsewhere; the counters follow any update.
  await laurel.db.all("update employees set employee_state = 'pending' where external_id in ('X-5', 'X-7', 'X-9')");

  const truth = async (orgId: string, where: string, params: unknown[]): Promise<number> => {
    const rows = (await laurel.db.all(`select count(*)::int as n from employees where organization_id = ? ${where}`, [
      orgId,
      ...params,
    ])) as {
      n: number;
    }[];
    return rows[0]?.n ?? -1;
  };
  const cases: Array<[string, string, unknown[]]> = [
    ["", "", []],
    ["employee_state=pending", "and employee_state = ?", ["pending"]],
    ["employee_state=created,pending", "and employee_state in (?, ?)", ["created", "pending"]],
    ["team=red", "and lower(team) = ?", ["red"]],
    ["team=BLUE", "and lower(team) = ?", ["blue"]],
    ["department=ops", "and lower(department) = ?", ["ops"]],
    ["filter=department::R%26D|team::blue", "and lower(department) = ? and lower(team) = ?", ["r&d", "blue"]],
    ["filter=employee_state::pending|team::red", "and employee_state = ? and lower(team) = ?", ["pending", "red"]],
    ["name_or_email=p1", "and (lower(first_name || ' ' || last_name) like ? or email_key like ?)", ["%p1%", "%p1%"]],
  ];
  for (const { organization, authorization_token } of orgs) {
    const auth = basic(authorization_token.token);
    for (const [query, where, params] of cases) {
      const res = await api("GET", `/organizations/${organization.id}/employees?${query}`, auth);
      t.equal(res.status, 200, query);
      t.equal(
        res.body.metadata.total_count,
        await truth(organization.id, where, params),
        `${organization.name}: ${query || "no filter"}`,
      );
    }
  }
});
