import t from "tap";
import { doneNotice } from "../../adapters/web/sent.ts";

/** A redirect's `?done=` shows only a notice the page names: inherited names show nothing. */
const NOTICES = { saved: "Saved." };

t.equal(doneNotice(NOTICES, { query: { done: "saved" } }), "Saved.", "a named notice");
for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty", "unknown", ""]) {
  t.equal(doneNotice(NOTICES, { query: { done: name } }), null, `?done=${name} shows nothing`);
}
t.equal(doneNotice(NOTICES, { query: undefined }), null, "no query");
t.equal(doneNotice(NOTICES, { query: { done: ["saved", "x"] } }), null, "a repeated parameter names nothing");
