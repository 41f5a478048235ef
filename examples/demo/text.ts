/** Words too common to say anything about a document; dropped from the index and from statistics. */
const STOPWORDS = new Set(
  (
    'a about after again all also an and any are as at be because been before being but by can could did do does ' +
    'each every few for from had has have how i if in into is it its just less more most much no nor not now of ' +
    'off on once one only or other our out over own same should so some such than that the their them then there ' +
    'these they this those through to too under until up very was we were what when where which while who why ' +
    'will with within without would you your us'
  ).split(' '),
);

/**
 * Splits text into index terms: lower case, runs of letters and digits (so "MCP-lite" gives "mcp" and "lite"),
 * stopwords dropped, and plurals folded ("results" -> "result") so a query matches either form.
 */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (word.length < 2 || STOPWORDS.has(word)) continue;
    out.push(stem(word));
  }
  return out;
}

function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** The sentences of a text (good enough for excerpts: split after . ! ? followed by a space). */
export function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+/).filter((s) => s.length > 0);
}

/** Shortens text to about `max` characters at a word boundary, with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[,;:]$/, '')}...`;
}

/** "quarterly results" -> "Quarterly Results"; words with capitals of their own ("gRPC") are left alone. */
export function titleCase(text: string): string {
  return text.replace(/[\p{L}\p{N}-]+/gu, (w) =>
    w === w.toLowerCase() ? w.charAt(0).toUpperCase() + w.slice(1) : w,
  );
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts (so cancel stops the wait). */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
