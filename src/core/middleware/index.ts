/** The built-in middleware a user composes (`createServer({ middleware: [...] })`), docs/middleware.md. */
export { type CacheResultsOptions, cacheResults } from './cache-results.js';
export { type LogCallsOptions, logCalls } from './log-calls.js';
export { type TimeoutLimit, timeout } from './timeout.js';
export { visibleTools } from './visible-tools.js';
