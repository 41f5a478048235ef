/**
 * The portable entries (`mcplite`, `mcplite/fetch`, `mcplite/http`, `mcplite/mcp`, `mcplite/webtools`) must load
 * where there is no Node (Workers without nodejs_compat, browsers) and must not drag the heavy optional peers in:
 * this walks each entry's import graph from the source that package.json's `exports` names, following every
 * import that loads code (static, re-exports and literal `import()`, which bundlers follow too; type-only imports
 * are erased), and fails on a Node built-in, `ws`, gRPC, Redis/BullMQ or prom-client.
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const exportsMap = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { import: string } | string>;
  }
).exports;

/** Entries that promise to load on every runtime (docs/runtimes.md, docs/architecture.md). */
const PORTABLE = ['.', './fetch', './http', './mcp', './webtools'];

const builtins = new Set(builtinModules);
/** Why a bare specifier may not be reached from a portable entry, or undefined when it may. */
function forbidden(spec: string): string | undefined {
  if (spec.startsWith('node:') || builtins.has(spec.split('/')[0]!)) return 'a Node built-in';
  if (spec === 'ws') return 'the ws package (WebSocket serving is mcplite/node)';
  if (/^(@grpc\/|grpc-health-check$|@bufbuild\/protobuf$)/.test(spec)) return 'gRPC (mcplite/grpc)';
  if (spec === 'ioredis' || spec === 'bullmq') return 'Redis (mcplite/redis)';
  if (spec === 'prom-client') return 'metrics (an optional peer)';
  return undefined;
}

/**
 * The specifiers of the imports in `file` that load code at run time; with `dynamic: false`, only those that load
 * when the file itself loads (a literal `import()` then waits for its first use).
 */
function loadingImports(file: string, dynamic = true): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const specs: string[] = [];
  const onlyTypes = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>) =>
    elements.length > 0 && elements.every((e) => e.isTypeOnly);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause?.isTypeOnly ||
        (clause !== undefined &&
          !clause.name &&
          clause.namedBindings !== undefined &&
          ts.isNamedImports(clause.namedBindings) &&
          onlyTypes(clause.namedBindings.elements));
      if (!typeOnly) specs.push(node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const typeOnly =
        node.isTypeOnly ||
        (node.exportClause !== undefined &&
          ts.isNamedExports(node.exportClause) &&
          onlyTypes(node.exportClause.elements));
      if (!typeOnly) specs.push(node.moduleSpecifier.text);
    } else if (
      dynamic &&
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      specs.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specs;
}

/**
 * Every forbidden import reachable from `entry`, each with the chain of files that reaches it; `dynamic: false`
 * walks only what loads with the entry itself, and `rule` says what is forbidden.
 */
function forbiddenReach(entry: string, dynamic = true, rule = forbidden): string[] {
  const parentOf = new Map<string, string | undefined>([[entry, undefined]]);
  const queue = [entry];
  const found: string[] = [];
  const chain = (file: string): string => {
    const files: string[] = [];
    for (let f: string | undefined = file; f; f = parentOf.get(f)) files.unshift(relative(ROOT, f));
    return files.join(' -> ');
  };
  for (let file = queue.shift(); file; file = queue.shift()) {
    for (const spec of loadingImports(file, dynamic)) {
      if (spec.startsWith('.')) {
        // Source imports name the .js their build will have; the build's files import each other as they are.
        const target = resolve(dirname(file), file.endsWith('.ts') ? spec.replace(/\.js$/, '.ts') : spec);
        if (!parentOf.has(target)) {
          parentOf.set(target, file);
          queue.push(target);
        }
        continue;
      }
      const why = rule(spec);
      if (why) found.push(`${chain(file)} imports '${spec}': ${why}`);
    }
  }
  return found;
}

/** The built file an export's `import` names (the bundled entry, whose chunks are what a runtime loads). */
function builtOf(subpath: string): string {
  const target = exportsMap[subpath]!;
  return join(ROOT, typeof target === 'string' ? target : target.import);
}

/** The source file an export's `import` target was built from (`./dist/src/x.js` -> `src/x.ts`). */
function sourceOf(subpath: string): string {
  const target = exportsMap[subpath]!;
  const built = typeof target === 'string' ? target : target.import;
  return join(ROOT, built.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
}

describe('portable entries', () => {
  it.each(PORTABLE)('%s reaches no Node built-in, ws, gRPC, Redis or metrics module', (subpath) => {
    expect(forbiddenReach(sourceOf(subpath))).toEqual([]);
  });

  // The bundle must not have merged a Node-only module into a chunk that a portable entry loads.
  it.each(PORTABLE)('%s as built (its bundle and chunks) reaches none of them either', (subpath) => {
    expect(forbiddenReach(builtOf(subpath))).toEqual([]);
  });

  it('the walk does see such imports where they are (mcplite/node reaches node:http and ws)', () => {
    const reached = forbiddenReach(sourceOf('./node')).join('\n');
    expect(reached).toContain("'node:http'");
    expect(reached).toContain("'ws'");
    expect(forbiddenReach(builtOf('./node')).join('\n')).toContain("'node:http'");
  });
});

/**
 * What a server that uses no OAuth and no WebSocket must not load at start (cold start, docs/performance.md), nor
 * what only another runtime needs (the interpreting validator, the fallback hashes: `core/deferred-modules.ts`).
 */
function heavyAtStart(spec: string): string | undefined {
  if (spec === 'jose') return 'jose (loaded on the first token checked)';
  if (spec === 'ws') return 'the ws package (loaded by a server that serves WebSocket)';
  if (spec.startsWith('@modelcontextprotocol/')) return 'the MCP SDK (a client part)';
  if (spec.startsWith('@cfworker/json-schema'))
    return 'the interpreting validator (loaded where code cannot be generated)';
  if (spec.startsWith('@noble/hashes'))
    return 'the fallback hashes (loaded where node:crypto is not at hand)';
  return undefined;
}

describe('what loads at start', () => {
  it('the root entry loads no jose, ws, MCP SDK, interpreting validator or fallback hashes with itself', () => {
    expect(forbiddenReach(sourceOf('.'), false, heavyAtStart)).toEqual([]);
  });

  it('the root entry as built loads none of them with its chunks either', () => {
    expect(forbiddenReach(builtOf('.'), false, heavyAtStart)).toEqual([]);
  });

  it('serve loads none of them with itself (they come when first used)', () => {
    expect(forbiddenReach(join(ROOT, 'src/serve.ts'), false, heavyAtStart)).toEqual([]);
  });

  it('the static walk does see such a module where its file loads it (the WebSocket binding loads ws)', () => {
    const reached = forbiddenReach(join(ROOT, 'src/bindings/mcp/ws/index.ts'), false, heavyAtStart).join(
      '\n',
    );
    expect(reached).toContain("'ws'");
  });
});
