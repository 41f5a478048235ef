let lastMs = Number.NaN;
let lastText = '';
let lastSecond = Number.NaN;
let secondPrefix = '';

/**
 * Epoch milliseconds as ISO-8601, exactly as `new Date(ms).toISOString()` writes it. Formatting a Date costs about
 * as much as a small tool call, and the JSON wires write a timestamp on every answer: the text is reused for the
 * same millisecond (many calls end within one under load), and otherwise only the milliseconds are appended to
 * the cached rest of the same second.
 */
export function isoTime(ms: number): string {
  if (ms === lastMs) return lastText;
  if (!Number.isInteger(ms)) return new Date(ms).toISOString();
  const frac = ((ms % 1000) + 1000) % 1000;
  const second = ms - frac;
  if (second !== lastSecond) {
    // "2026-01-02T03:04:05.000Z" without "000Z"; slicing from the end also suits six-digit years.
    const prefix = new Date(second).toISOString().slice(0, -4);
    lastSecond = second;
    secondPrefix = prefix;
  }
  lastMs = ms;
  lastText = `${secondPrefix}${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}Z`;
  return lastText;
}
