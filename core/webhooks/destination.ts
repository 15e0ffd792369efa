/**
 * How a worker shares itself between destinations (one slow or dead receiver must not
 * delay other organizations). A destination gets a few requests at once; a burst to a healthy one
 * waits briefly in memory; anything more is put off, in JetStream when short, in the database when
 * long. A destination failing again and again is only probed at a low rate, so thousands of
 * retries to a dead receiver cost little and their waves spread out instead of crowding the rest.
 */
export interface DestinationPolicy {
  /** A message waits in memory for its destination only while it should get a slot this soon. */
  maxWaitSeconds: number;
  /** Put-offs up to this long stay in JetStream (a delayed NAK); longer ones go to the database. */
  shortPutOffSeconds: number;
  /** Consecutive failed attempts after which a destination counts as failing. */
  failingAfter: number;
  /** Attempts per second per worker to a failing destination (until one succeeds). */
  failingAttemptsPerSecond: number;
  /** Bounds of a put-off. */
  minPutOffSeconds: number;
  maxPutOffSeconds: number;
}

export const DESTINATION_POLICY: DestinationPolicy = {
  maxWaitSeconds: 1,
  shortPutOffSeconds: 5,
  failingAfter: 10,
  failingAttemptsPerSecond: 5,
  minPutOffSeconds: 0.2,
  maxPutOffSeconds: 6 * 3600,
};

export const destinationIsFailing = (
  consecutiveFailures: number,
  policy: DestinationPolicy = DESTINATION_POLICY,
): boolean => consecutiveFailures >= policy.failingAfter;

/**
 * How long to put off a delivery that found its destination full: the time the queue ahead of it
 * needs (`aheadSeconds`), bounded, ±20% so put-off deliveries do not come back together.
 *
 * @example putOffSeconds(3, 0.5) // 3
 */
export const putOffSeconds = (
  aheadSeconds: number,
  random: number,
  policy: DestinationPolicy = DESTINATION_POLICY,
): number => {
  const base = Math.min(Math.max(aheadSeconds, policy.minPutOffSeconds), policy.maxPutOffSeconds);
  const r = Math.min(Math.max(random, 0), 1);
  return base * (1 + 0.2 * (2 * r - 1));
};
