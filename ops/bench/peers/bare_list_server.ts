// A bare node:http server answering every GET with one precomputed JSON body: the ceiling for
// "an authenticated GET of a 50-item list" (no auth, no database, no serialization per request).
// Env: PORT, BODY_BYTES (exact body size; default 20000). Prints "listening <port>" when ready.

import { peerPort, serveGets } from "./bare_get_server.ts";

const port = peerPort();
const bodyBytes = Number(process.env.BODY_BYTES ?? "20000");
if (!Number.isInteger(bodyBytes) || bodyBytes < 2) throw new Error("BODY_BYTES must be an integer >= 2");

const ITEMS = 50;
const ORGANIZATION = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";

/** An envelope shaped like Laurel's list page of 50 OAuth applications. */
function envelope(descriptions: readonly string[]): unknown {
  const data = descriptions.map((description, index) => {
    const stamp = new Date(Date.UTC(2026, 0, 1, 0, 0, ITEMS - index)).toISOString();
    return {
      id: 1000 + index,
      name: `Integration ${index + 1}`,
      description,
      created_at: stamp,
      updated_at: stamp,
      last_used_at: null,
      last_successfully_used_at: null,
      uid: `uid${String(index).padStart(40, "x")}`,
      created_by_id: ORGANIZATION,
      created_by_type: "User",
      created_by_name: "Bench Admin",
      creator_available: true,
      secret: null,
    };
  });
  return {
    data,
    metadata: {
      count: ITEMS,
      current_page: 1,
      total_count: ITEMS,
      total_pages: 1,
      per: ITEMS,
      previous_page_url: null,
      next_page_url: null,
    },
  };
}

/** Spreads padding over the items' descriptions so the serialized body is exactly `size` bytes. */
function bodyOfSize(size: number): Buffer {
  const empty = JSON.stringify(envelope(Array.from({ length: ITEMS }, () => "")));
  const missing = size - Buffer.byteLength(empty);
  if (missing < 0) {
    // Smaller than a realistic page: a JSON string of the right length still has the same cost.
    return Buffer.from(JSON.stringify("x".repeat(size - 2)));
  }
  const share = Math.floor(missing / ITEMS);
  const extra = missing % ITEMS;
  const descriptions = Array.from({ length: ITEMS }, (_, index) =>
    "Lorem ipsum dolor sit amet ".repeat(Math.ceil((share + 1) / 27)).slice(0, share + (index < extra ? 1 : 0)),
  );
  const body = Buffer.from(JSON.stringify(envelope(descriptions)));
  if (body.length !== size) throw new Error(`built ${body.length} bytes instead of ${size}`);
  return body;
}

const body = bodyOfSize(bodyBytes);
const headers = {
  "content-type": "application/json; charset=utf-8",
  "content-length": String(body.length),
};

serveGets(port, (_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
