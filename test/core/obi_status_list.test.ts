import t from "tap";
import {
  STATUS_LIST_SIZE,
  statusListBits,
  statusListCredentialPayload,
  statusListEntry,
  statusListNumber,
} from "../../core/obi/mod.ts";

const v3Base = "https://laurel.example/v1/obi/v3";
const obiBase = "https://laurel.example/v1/obi/v2";
const org = "0190f1a2-0000-7000-8000-000000000001";

t.test("an index names a list and a bit in it", (t) => {
  t.same(statusListEntry(v3Base, org, 5), {
    id: `${v3Base}/status_lists/${org}/0#5`,
    type: "BitstringStatusListEntry",
    statusPurpose: "revocation",
    statusListIndex: "5",
    statusListCredential: `${v3Base}/status_lists/${org}/0`,
  });
  const second = statusListEntry(v3Base, org, STATUS_LIST_SIZE + 7);
  t.equal(second.statusListCredential, `${v3Base}/status_lists/${org}/1`);
  t.equal(second.statusListIndex, "7");
  t.end();
});

t.test("bits: the first index is the most significant bit of the first byte; other lists' indexes are ignored", (t) => {
  t.equal(STATUS_LIST_SIZE, 131_072);
  const bits = statusListBits([0, 9, STATUS_LIST_SIZE - 1, STATUS_LIST_SIZE + 3], 0);
  t.equal(bits.length, STATUS_LIST_SIZE / 8);
  t.equal(bits[0], 0b1000_0000);
  t.equal(bits[1], 0b0100_0000);
  t.equal(bits[bits.length - 1], 0b0000_0001);
  t.equal(
    bits.reduce((n, byte) => n + byte.toString(2).replaceAll("0", "").length, 0),
    3,
  );
  const second = statusListBits([3, STATUS_LIST_SIZE + 3], 1);
  t.equal(second[0], 0b0001_0000, "list 1 holds only its own index");
  t.end();
});

t.test("the list credential: the organization's issuer id, its address as id and jti", (t) => {
  const payload = statusListCredentialPayload({ obiBase, v3Base }, org, 2, "uH4sI");
  t.same(payload, {
    "@context": ["https://www.w3.org/ns/credentials/v2"],
    id: `${v3Base}/status_lists/${org}/2`,
    type: ["VerifiableCredential", "BitstringStatusListCredential"],
    issuer: `${v3Base}/issuers/${org}`,
    credentialSubject: {
      id: `${v3Base}/status_lists/${org}/2#list`,
      type: "BitstringStatusList",
      statusPurpose: "revocation",
      encodedList: "uH4sI",
    },
    iss: `${v3Base}/issuers/${org}`,
    jti: `${v3Base}/status_lists/${org}/2`,
  });
  t.end();
});

t.test("list numbers: decimal, no leading zero, every index within 32 bits", (t) => {
  t.equal(statusListNumber("0"), 0);
  t.equal(statusListNumber("16383"), 16383);
  for (const bad of ["16384", "999999", "01", "-1", "1e3", "", "x"]) t.equal(statusListNumber(bad), null, bad);
  t.end();
});
