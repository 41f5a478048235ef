/** Log levels of `logging/setLevel` and `notifications/message`, least severe first. */
export const LOG_LEVELS = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;

/** Whether a message at `level` passes the threshold `min`. */
export function logPasses(level: string, min: string | undefined): boolean {
  if (min === undefined) return false;
  return (
    LOG_LEVELS.indexOf(level as (typeof LOG_LEVELS)[number]) >=
    LOG_LEVELS.indexOf(min as (typeof LOG_LEVELS)[number])
  );
}
