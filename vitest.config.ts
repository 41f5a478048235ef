import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    // Safety nets only: tests wait on events and counts, and on a loaded 2-core machine a test that starts a CLI
    // or a server can take well over 20 s without anything being wrong.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    // Two cores: a couple of forks keep servers and clients from starving each other.
    pool: 'forks',
    maxWorkers: 2,
  },
});
