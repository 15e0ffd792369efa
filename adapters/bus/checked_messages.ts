import type { Static, TSchema } from "typebox";
import { Compile } from "typebox/compile";

/** Where a receiver reports what it dropped; pino's logger fits, and so does `console`. */
export interface BusLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** How much of a dropped message's text goes into the log line. */
const EXCERPT_CHARS = 200;

const decoder = new TextDecoder();

/** Marks a message that was logged and dropped, as opposed to any value a schema may accept. */
export const DROPPED: unique symbol = Symbol("dropped");

/**
 * Reads received bytes as JSON and checks them against `schema` (compiled once): the value, or
 * `DROPPED` after a warning naming the subject, the first problem and the start of the text.
 * Anything that can publish on the bus can write anything, so a message is never trusted nor
 * allowed to throw in the receiver.
 */
export const messageReader = <S extends TSchema>(schema: S, log: BusLog) => {
  const checker = Compile(schema);
  return (subject: string, data: Uint8Array): Static<S> | typeof DROPPED => {
    const text = decoder.decode(data);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      log.warn({ subject, message: text.slice(0, EXCERPT_CHARS) }, "malformed message dropped: not JSON");
      return DROPPED;
    }
    if (checker.Check(body)) return body as Static<S>;
    const problem = checker.Errors(body)[0];
    log.warn(
      {
        subject,
        problem: problem ? `${problem.instancePath || "/"} ${problem.message}` : "does not match its schema",
        message: text.slice(0, EXCERPT_CHARS),
      },
      "malformed message dropped",
    );
    return DROPPED;
  };
};
