/** Text helpers for the generator: capitalisation, title case and filling {slot} templates. */

/** Upper-cases the first letter, unless the first word has capitals of its own ("gRPC streaming"): a name. */
export const capitalise = (s: string) => (/^\S*[A-Z]/.test(s) ? s : s.charAt(0).toUpperCase() + s.slice(1));
// Words a title keeps in lower case (except at the start).
const SMALL_WORDS = new Set([
  'a',
  'an',
  'and',
  'at',
  'for',
  'in',
  'of',
  'on',
  'or',
  'the',
  'to',
  'with',
  'vs',
]);
/** Title-cases a title, leaving small words and names (words with capitals) alone. */
export const titleCase = (s: string) =>
  s
    .split(' ')
    // Words with capitals of their own (gRPC, PostgreSQL) are names: leave them as they are.
    .map((w, i) => ((i > 0 && SMALL_WORDS.has(w)) || /[A-Z]/.test(w) ? w : capitalise(w)))
    .join(' ');

/** Replaces each {slot} in a template with its value ({Slot}: capitalised); throws on an unknown slot. */
export function fill(template: string, slots: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    const lower = key.charAt(0).toLowerCase() + key.slice(1);
    const value = slots[lower];
    if (value === undefined) throw new Error(`Unknown slot {${key}} in "${template}"`);
    // A capitalised slot ({Topic}) starts a sentence or a title word, so its value is capitalised too.
    return key === lower ? value : capitalise(value);
  });
}
