/**
 * `mcplite/redis`: everything a server keeps, on Redis, so that any number of replicas behind one balancer serve
 * alike: promises, MCP sessions (with their event logs, server requests and task-resume data), rate-limit buckets,
 * used elicitation nonces, the BullMQ queue that runs long work on any worker, and the connection helpers they use (docs/deploy.md).
 */
export {
  type ConnectRedisOptions,
  connectRedis,
  redactUrl,
  redisReady,
  storeUnavailable,
  withRedis,
} from './connection.js';
export {
  RedisElicitationNonceStore,
  type RedisElicitationNonceStoreOptions,
} from './elicitation-nonce-store.js';
export { RedisPromiseStore, type RedisPromiseStoreOptions } from './promise-store.js';
export { BullMqWorkQueue, type BullMqWorkQueueOptions, DEFAULT_QUEUE_NAME } from './queue.js';
export { RedisRateLimitStore, type RedisRateLimitStoreOptions } from './rate-limit-store.js';
export { RedisSessionStore, type RedisSessionStoreOptions } from './session-store.js';
