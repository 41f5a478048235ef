/**
 * A server whose `explode` tool throws, run as a child process so that the tests read its real stderr
 * (`node --import tsx test/support/throwing-server.ts <default|console|arguments>`). It prints
 * `listening <url>` on stdout once it serves. Its `mark` tool writes `MARK_LINE` to the same stderr: a test that
 * calls it after the failing calls knows, once the mark is there, that every line those calls made is there too.
 */
import { createServer } from '../../src/create-server.js';
import { serve } from '../../src/serve.js';

const mode = process.argv[2] ?? 'default';

/** What `mark` writes to stderr (test/core/default-logger.test.ts looks for it). */
const MARK_LINE = '--mark--';

/** Named, so that the tests find it in the logged stack. */
function failInsideHandler(args: Record<string, unknown>): never {
  throw new Error(`the disk is full (${typeof args.note})`);
}

const server = createServer({
  name: 'throwing',
  tools: [
    {
      name: 'explode',
      inputSchema: { type: 'object', properties: { note: { type: 'string' } } },
      handler: (args) => failInsideHandler(args),
    },
    {
      name: 'mark',
      inputSchema: { type: 'object', properties: {} },
      handler: () => {
        process.stderr.write(`${MARK_LINE}\n`);
        return 'marked';
      },
    },
  ],
  ...(mode === 'console' ? { logger: console } : {}),
  ...(mode === 'arguments' ? { logArguments: true } : {}),
});
const running = await serve(server, { port: 0 });
process.stdout.write(`listening ${running.url}\n`);
process.on('SIGTERM', () => {
  void running.close(100).then(() => process.exit(0));
});
