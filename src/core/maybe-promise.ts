/**
 * The synchronous fast path, in one place. A call whose handler answers synchronously is answered in the same
 * turn through every layer (adapter, binding, core): each promise turn costs a small call a measurable share of its
 * time. Functions on that path return a `MaybePromise` and map it with `mapMaybe`, which stays synchronous for a
 * value; anything that has to wait returns a promise as usual. docs/architecture.md, "The fast path", says where
 * it is used.
 */

/** A value now, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/** Applies `f` now to a value, or later to what a promise resolves to (a rejection passes through). */
export function mapMaybe<T, R>(value: MaybePromise<T>, f: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(f) : f(value);
}
