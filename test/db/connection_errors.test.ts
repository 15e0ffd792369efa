import t from "tap";
import { isDatabaseUnavailable } from "../../adapters/db/mod.ts";

const withCode = (code: string, message = "x"): Error => Object.assign(new Error(message), { code });

t.test("connection-level database errors are told apart from statement errors", async (t) => {
  const cases: Array<[unknown, boolean, string]> = [
    [withCode("57P01", "terminating connection due to administrator command"), true, "admin shutdown"],
    [withCode("57P02"), true, "crash shutdown"],
    [withCode("57P03", "the database system is shutting down"), true, "cannot connect now"],
    [withCode("08006"), true, "connection failure (class 08)"],
    [withCode("08P01"), true, "protocol violation (class 08)"],
    [withCode("ECONNREFUSED"), true, "connection refused"],
    [withCode("ECONNRESET"), true, "connection reset"],
    [new Error("Connection terminated unexpectedly"), true, "pg's connection cut"],
    [new Error("timeout exceeded when trying to connect"), true, "pool"],
    [new Error("wrapped", { cause: withCode("57P01") }), true, "a cause is looked at"],
    [withCode("25006", "cannot execute INSERT in a read-only transaction"), true, "a write on a demoted primary"],
    [
      withCode("08001", "no read-write PostgreSQL server among h1:5432, h2:5432"),
      true,
      "no server of a host list will do",
    ],
    [withCode("23505", "duplicate key value"), false, "unique violation"],
    [withCode("42P01", "relation does not exist"), false, "a missing table is a fault"],
    [new Error("something else"), false, "any other error"],
    ["a string", false, "not an error"],
    [null, false, "nothing"],
  ];
  for (const [err, expected, what] of cases) t.equal(isDatabaseUnavailable(err), expected, what);
});
