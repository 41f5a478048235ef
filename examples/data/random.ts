/**
 * The generator's seeded randomness. Every choice goes through here, so that one seed fixes the whole output;
 * Math.random would not be reproducible.
 */

/** The seed every generated collection starts from. */
export const SEED = 0x6d63706c; // "mcpl"

// mulberry32: tiny, fast and good enough for picking words.
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let current = prng(SEED);

/** Restarts the sequence; generate() calls it so every run (and every test that calls it) is the same. */
export function reseed(seed: number = SEED): void {
  current = prng(seed);
}

/** The next number in [0, 1). */
export const rand = (): number => current();
/** A whole number from min to max, both included. */
export const int = (min: number, max: number) => min + Math.floor(rand() * (max - min + 1));
/** One element of a non-empty list. */
export const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
