const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

/** Weekly partitions kept ready ahead of the current week, so no write ever waits for one. */
export const PARTITION_WEEKS_AHEAD = 4;

/** A delivery may be retried for 25 days; its log is kept longer than that by default. */
export const DEFAULT_WEBHOOK_LOG_RETENTION_DAYS = 35;

/** Monday 00:00 UTC of the week holding `t`: the lower bound of its weekly partition. */
export const weekStart = (t: Date): Date => {
  const day = Math.floor(t.getTime() / DAY_MS) * DAY_MS;
  // 1970-01-01 was a Thursday: days since then, shifted so that Monday is 0.
  const weekday = (Math.floor(day / DAY_MS) + 3) % 7;
  return new Date(day - weekday * DAY_MS);
};

export interface PartitionPlan {
  /** Lower bounds of the weeks that must have a partition: this one and the next few. */
  ensure: Date[];
  /**
   * A week whose upper bound is at or before this instant is past the webhook log's retention
   * window: its partitions may be dropped, each only once every delivery it holds has finished.
   */
  dropEndingBy: Date;
  /**
   * The same bound for the events' weeks, each dropped only once every event it holds is
   * published; null when events are kept for good.
   */
  dropEventsEndingBy: Date | null;
}

/** How long each partitioned history is kept, in days; events for good when 0. */
export interface RetentionDays {
  webhookLog: number;
  events: number;
}

/** Which weekly partitions to create and which are old enough to drop, at `now`. */
export const partitionPlan = (
  now: Date,
  retention: RetentionDays,
  weeksAhead = PARTITION_WEEKS_AHEAD,
): PartitionPlan => {
  const first = weekStart(now).getTime();
  const ensure: Date[] = [];
  for (let i = 0; i <= weeksAhead; i++) ensure.push(new Date(first + i * WEEK_MS));
  const before = (days: number) => new Date(now.getTime() - days * DAY_MS);
  return {
    ensure,
    dropEndingBy: before(retention.webhookLog),
    dropEventsEndingBy: retention.events > 0 ? before(retention.events) : null,
  };
};

export const partitionWeekEnd = (start: Date): Date => new Date(start.getTime() + WEEK_MS);

/**
 * The weekly partitions of the webhook log (deliveries and attempts) and of the events, kept by
 * the retention worker.
 */
export interface WebhookLogPartitions {
  /** Creates the missing partitions of these weeks, for every table; answers how many were created. */
  ensure(weeks: Date[]): Promise<number>;
  /** Drops the log's partitions ending by `endingBy` that hold no unfinished delivery; answers how many. */
  dropFinished(endingBy: Date): Promise<number>;
  /**
   * Drops the events' partitions ending by `endingBy` that hold no unpublished event; answers how
   * many. Their deliveries stay until the log's own retention.
   */
  dropPublishedEvents(endingBy: Date): Promise<number>;
}
