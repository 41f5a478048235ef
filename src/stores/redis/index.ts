/**
 * `mcplite/redis`: everything a server keeps, on Redis, so that any number of replicas behind one balancer serve
 * alike: promises, MCP sessions (with their event logs, server requests and task-resume data), rate-limit buckets,
 * used elicitation nonces, the BullMQ queue that runs long work on any worker, and `connectRedis` to open the
 * connection they share (docs/deploy.md). The helpers they are built on stay internal.
 */
export { type ConnectRedisOptions, connectRedis } from './connection.js';
export {
  RedisElicitationNonceStore,
  type RedisElicitationNonceStoreOptions,
} from './elicitation-nonce-store.js';
export { RedisPromiseStore, type RedisPromiseStoreOptions } from './promise-store.js';
export { BullMqWorkQueue, type BullMqWorkQueueOptions } from './queue.js';
export { RedisRateLimitStore, type RedisRateLimitStoreOptions } from './rate-limit-store.js';
export { RedisSessionStore, type RedisSessionStoreOptions } from './session-store.js';
