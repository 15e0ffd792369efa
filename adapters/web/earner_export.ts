import { Readable } from "node:stream";
import { ZipFile } from "yazl";
import { fullName } from "../../core/badges/mod.ts";
import { type EarnerExportRecord, type EarnerStore, type ExportStore, exportExpiry } from "../../core/earners/mod.ts";
import type { BadgeView } from "../../core/issuing/mod.ts";
import type { MailOutbox } from "../../core/mail/mod.ts";
import { bakedImageVisible } from "../../core/obi/mod.ts";
import type { BadgeImageBaker, BadgeRecords, DataIntegrityCredentials } from "../obi/mod.ts";

/** The ZIP goes to the database in pieces of about this size: neither side holds it whole. */
export const EXPORT_CHUNK_BYTES = 32 * 1024;

export interface ExportWriterDeps {
  earners: Pick<EarnerStore, "getAccount" | "userBadges">;
  exports: ExportStore;
  records: BadgeRecords;
  dataIntegrity: Pick<DataIntegrityCredentials, "signed">;
  baker: BadgeImageBaker;
  /** The view with its template's accepted endorsements, which the OB 3.0 credential embeds; absent: none. */
  withEndorsements?: (view: BadgeView) => Promise<BadgeView>;
  outbox: Pick<MailOutbox, "enqueue">;
  publicUrl: string;
  clock: () => Date;
  newId: () => string;
  newToken: () => string;
  digest(token: string): string;
}

/** Entries added but not yet written out before `add`'s caller waits (a few badges' worth). */
const ENTRIES_AHEAD = 32;
/** Chunks stored by one statement: a 1,000-badge file takes some 60 statements, not 500. */
const CHUNKS_PER_WRITE = 8;

/**
 * A ZIP written into the export's chunks as it is made, in memory bounded by a few entries and a
 * few chunks: each entry's bytes are handed to yazl only when it writes that entry (yazl keeps what
 * `addBuffer` is given until the whole file is done), `caughtUp` holds the producer while the
 * database write lags, and the output is cut into chunks of exactly EXPORT_CHUNK_BYTES (the last
 * one shorter), so a reader knows how large a few chunks are.
 */
const zipWriter = (exports: Pick<ExportStore, "writeChunks">, exportId: string) => {
  const zip = new ZipFile();
  let added = 0;
  let written = 0;
  let failure: unknown;
  let resume: (() => void) | undefined;
  const wakeProducer = (): void => {
    resume?.();
    resume = undefined;
  };
  zip.on("error", (err: unknown) => {
    failure ??= err;
    wakeProducer();
  });
  const chunks = (async () => {
    const buffer = Buffer.allocUnsafe(CHUNKS_PER_WRITE * EXPORT_CHUNK_BYTES);
    let filled = 0;
    let seq = 0;
    let size = 0;
    const store = async (): Promise<void> => {
      const chunks: Buffer[] = [];
      for (let at = 0; at < filled || (seq === 0 && chunks.length === 0); at += EXPORT_CHUNK_BYTES) {
        chunks.push(buffer.subarray(at, Math.min(at + EXPORT_CHUNK_BYTES, filled)));
      }
      // The statement has sent the bytes when it resolves: the buffer is free again.
      await exports.writeChunks(exportId, seq, chunks);
      seq += chunks.length;
      filled = 0;
    };
    for await (const piece of zip.outputStream as AsyncIterable<Buffer>) {
      size += piece.length;
      for (let at = 0; at < piece.length; ) {
        const n = piece.copy(buffer, filled, at);
        filled += n;
        at += n;
        if (filled === buffer.length) await store();
      }
    }
    if (filled > 0 || seq === 0) await store();
    return size;
  })();
  chunks.catch((err: unknown) => {
    failure ??= err;
    wakeProducer();
  });
  return {
    add(bytes: Buffer, name: string, options: { mtime: Date; compress?: boolean }): void {
      let held: Buffer | null = bytes;
      added++;
      zip.addReadStreamLazy(name, { ...options, size: bytes.length }, (cb) => {
        const stream = Readable.from([held ?? Buffer.alloc(0)]);
        held = null;
        written++;
        wakeProducer();
        cb(null, stream);
      });
    },
    /** Resolves once yazl has no more than a few entries waiting. */
    async caughtUp(): Promise<void> {
      while (added - written > ENTRIES_AHEAD && failure === undefined) {
        await new Promise<void>((resolve) => {
          resume = resolve;
        });
      }
      if (failure !== undefined) throw failure;
    },
    /** Finishes the file; its size in bytes. */
    async end(): Promise<number> {
      if (failure !== undefined) throw failure;
      zip.end();
      return chunks;
    },
  };
};

/** The page that downloads an export, with its token. */
export const exportLink = (publicUrl: string, id: string, token: string): string =>
  `${publicUrl}/account/export/${id}?token=${encodeURIComponent(token)}`;

const json = (value: unknown): Buffer => Buffer.from(`${JSON.stringify(value, null, 2)}\n`, "utf8");

/**
 * Writes everything Laurel holds about the earner as a ZIP, streamed into the export's chunks:
 * `profile.json` (name, profile settings, e-mail addresses) and per badge its hosted OB 2.0
 * assertion, its OB 3.0 credential (unsigned JSON; where it is the earner's to carry, signed as a
 * VC-JWT and as JSON-LD with a Data Integrity proof, each as served) and its image with the assertion baked in. Then marks the export ready and mails the
 * link, together. Returns false when the account is gone.
 */
export const writeEarnerExport = async (deps: ExportWriterDeps, job: EarnerExportRecord): Promise<boolean> => {
  const account = await deps.earners.getAccount(job.user_id);
  if (!account) return false;
  const { user } = account;
  const file = zipWriter(deps.exports, job.id);
  const mtime = deps.clock();
  file.add(
    json({
      first_name: user.first_name,
      last_name: user.last_name,
      public_profile: account.public_profile,
      vanity_name: account.vanity_name,
      email_addresses: user.emails.map((e) => ({ email: e.email, confirmed: e.confirmed })),
    }),
    "profile.json",
    { mtime },
  );
  for (const view of await deps.earners.userBadges(job.user_id)) {
    const dir = `badges/${view.badge.id}`;
    file.add(
      json({
        name: view.template.name,
        issuer: view.issuer.name,
        earner: fullName(
          view.badge.issued_to_first_name,
          view.badge.issued_to_middle_name,
          view.badge.issued_to_last_name,
        ),
        state: view.badge.state,
        public: view.badge.public,
      }),
      `${dir}/badge.json`,
      { mtime },
    );
    file.add(deps.records.assertion(view), `${dir}/ob2-assertion.json`, { mtime });
    const endorsed = deps.withEndorsements ? await deps.withEndorsements(view) : view;
    file.add(json(JSON.parse(deps.records.credentialPayload(endorsed))), `${dir}/ob3-credential.json`, { mtime });
    if (bakedImageVisible(view.badge, job.user_id)) {
      file.add(Buffer.from(await deps.records.credential(endorsed), "utf8"), `${dir}/ob3-credential.jwt`, { mtime });
      file.add(await deps.dataIntegrity.signed(view), `${dir}/ob3-credential.jsonld`, { mtime });
      const [type] = await deps.baker.types(view);
      const baked = type ? await deps.baker.bake(view, type, "ob2") : null;
      // Images are compressed already.
      if (baked) file.add(baked, `${dir}/badge-baked.${type}`, { mtime, compress: false });
    }
    await file.caughtUp();
  }
  const size = await file.end();

  const token = deps.newToken();
  const readyAt = deps.clock();
  const to = user.emails.find((e) => e.confirmed)?.email ?? user.emails[0]?.email;
  if (!to) return false;
  const link = exportLink(deps.publicUrl, job.id, token);
  await deps.exports.finish(
    job.id,
    { tokenDigest: deps.digest(token), sizeBytes: size, readyAt, expiresAt: exportExpiry(readyAt) },
    {
      id: deps.newId(),
      kind: "earner_export",
      organization_id: null,
      content: { template: "export_ready", to, link },
      sent_event: null,
      created_at: readyAt,
    },
  );
  return true;
};
