import type { BadgeStandardShape } from "../../core/badges/mod.ts";

/** The badge every webhook benchmark sends, one shape for all so their payload sizes compare. */
export const BADGE: BadgeStandardShape = {
  id: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa",
  issued_to: "Ada Lovelace",
  issued_to_first_name: "Ada",
  issued_to_middle_name: null,
  issued_to_last_name: "Lovelace",
  issued_at: "2024-01-01T00:00:00.000Z",
  issued_at_date: "2024-01-01",
  expires_at: null,
  expires_at_date: null,
  state: "accepted",
  public: true,
  badge_url: "https://laurel.example/badges/aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa",
  badge_template: {
    id: "7d3f2a52-8f0e-4a43-8d8e-3a0b6a3f1c11",
    image: null,
    image_url: null,
    description: "Writes safe systems code",
    name: "Rust",
    skills: ["rust"],
  },
  issuer: { name: "Bench Org", image_url: null, authorized_issuer: null },
};
