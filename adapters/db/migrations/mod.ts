import type { MigrationObject } from "@mikro-orm/core";
import { M20261122001Foundation } from "./m20261122_001_foundation.ts";

/** Every migration, in order. A new one is appended here (names never change once released). */
export const MIGRATIONS: MigrationObject[] = [{ name: "m20261122_001_foundation", class: M20261122001Foundation }];
