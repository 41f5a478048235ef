/**
 * The demo's data set and the behaviour of its tools that the wire tests cannot see: the committed file is
 * what the generator makes, the collection has the promised shape, search ranks sensibly, and a cancelled
 * analysis really stops working.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generate, serialise } from '../../examples/data/generate.js';
import { documents } from '../../examples/demo/documents.js';
import { serverOptions, tools } from '../../examples/demo/index.js';
import { index } from '../../examples/demo/search-index.js';
import { createServer, type Logger } from '../../src/index.js';

describe('examples/data/documents.json', () => {
  it('is exactly what generate.ts produces (deterministic and up to date)', () => {
    const committed = readFileSync(new URL('../../examples/data/documents.json', import.meta.url), 'utf8');
    expect(serialise(generate())).toBe(committed);
  });

  it('has 300-400 well-formed documents over 8 categories', () => {
    expect(documents.length).toBeGreaterThanOrEqual(300);
    expect(documents.length).toBeLessThanOrEqual(400);
    documents.forEach((d, i) => {
      expect(d.document_id).toBe(`doc_${String(i + 1).padStart(3, '0')}`);
      expect(Object.keys(d)).toEqual(['document_id', 'title', 'category', 'author', 'published', 'body']);
      expect(new Date(`${d.published}T00:00:00Z`).toISOString().slice(0, 10)).toBe(d.published);
      expect(d.title.length).toBeGreaterThan(5);
      expect(d.body.length).toBeGreaterThan(150);
    });
    expect(new Set(documents.map((d) => d.category)).size).toBe(8);
    expect(new Set(documents.map((d) => d.title)).size).toBe(documents.length);
    expect(documents.filter((d) => /MCP|Model Context Protocol/.test(d.title)).length).toBeGreaterThanOrEqual(
      5,
    );
  });
});

describe('search', () => {
  it('ranks title matches first and folds plurals', () => {
    const [best] = index.search('MCP specifications', 3);
    expect(best!.document.title).toMatch(/MCP Specification/);
    expect(index.search('the and of', 5)).toEqual([]);
  });
});

/** A real logger that keeps what it is given, so a test can wait for an entry. */
function collectingLogger(
  entries: Array<Record<string, unknown>>,
  bindings: Record<string, unknown> = {},
): Logger {
  const write = (obj: unknown, msg?: string) => entries.push({ ...bindings, ...(obj as object), msg });
  return {
    debug: write,
    info: write,
    warn: write,
    error: write,
    child: (b) => collectingLogger(entries, { ...bindings, ...b }),
  };
}

describe('analyze_dataset', () => {
  it('stops working soon after its promise is cancelled', async () => {
    const entries: Array<Record<string, unknown>> = [];
    const server = createServer({ tools, ...serverOptions, logger: collectingLogger(entries) });
    try {
      const started = await server.callTool({
        name: 'analyze_dataset',
        arguments: { dataset_id: 'all', analysis_type: 'comprehensive' },
      });
      const token = started.meta.promise_token!;
      await server.callTool({ name: 'cancel', arguments: { promise: token } });
      await expect
        .poll(() => entries.find((e) => e.msg === 'analysis stopped early'), { timeout: 2000 })
        .toBeDefined();
      const stopped = entries.find((e) => e.msg === 'analysis stopped early')!;
      expect(stopped).toMatchObject({ tool: 'analyze_dataset', of: documents.length });
      expect(stopped.processed as number).toBeLessThan(documents.length);
    } finally {
      await server.close();
    }
  });
});
