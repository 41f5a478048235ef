/**
 * Agent Skills over MCP (`io.modelcontextprotocol/skills`, docs/discovery.md): a directory of skills read by
 * `loadSkills` and served by `serve`, driven by the official MCP SDK client over Streamable HTTP: the extension
 * declared, `skills/list` entries with the frontmatter verbatim and each file's sha256 digest and size (checked
 * against the bytes `resources/read` returns), `skills/get`, `resources/directory/read`, -32602 for what is not
 * served, a visibility middleware hiding a skill from a caller, and the reader's bounds.
 * The suite's own scenarios (`sep-2640-skills-*`): test/discovery/skills-conformance.test.ts.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createServer, McpLiteError, type Middleware } from '../../src/index.js';
import { loadSkills, type RunningServer, serve } from '../../src/node.js';
import { run as runCli } from '../support/cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'mcplite-skills-'));
const PDF_MD =
  '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  tier: "2"\n  since: 2024-01-01\n---\n\nRead references/FORMS.md first.\n';
const FORMS = '# Forms\n';
const INTERNAL_MD = '---\nname: internal-ops\ndescription: Only for operators\n---\n\nRotate keys.\n';

const AnyResult = z.record(z.string(), z.unknown());

function write(path: string, content: string): void {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), content);
}

/** Hides the internal-ops skill (its entry and its files) from every caller, answering as for an unknown one. */
const hideInternal: Middleware = async (op, next) => {
  if (op.name?.startsWith('skill://internal-ops/')) {
    if (op.method === 'skills/get')
      throw new McpLiteError('invalid_params', `Invalid params: no skill at ${op.name}`);
    throw new McpLiteError('resource_not_found', `Resource not found: ${op.name}`, { uri: op.name });
  }
  const result = await next();
  if (op.method === 'skills/list')
    return (result as { uri: string }[]).filter((s) => !s.uri.startsWith('skill://internal-ops/'));
  if (op.method === 'resources/list')
    return (result as { uri: string }[]).filter((r) => !r.uri.startsWith('skill://internal-ops/'));
  return result;
};

describe('skills served from a directory', () => {
  let running: RunningServer;
  let client: Client;

  beforeAll(async () => {
    write('pdf-processing/SKILL.md', PDF_MD);
    write('pdf-processing/references/FORMS.md', FORMS);
    write('pdf-processing/.hidden', 'never served');
    write('internal-ops/SKILL.md', INTERNAL_MD);
    write('not-a-skill/README.md', 'no SKILL.md here');
    const skills = await loadSkills(dir);
    running = await serve(createServer({ name: 'skills', tools: [], skills, middleware: [hideInternal] }), {
      port: 0,
      grpc: false,
    });
    client = new Client({ name: 'skills-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${running.url}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    await running?.close(1000);
    rmSync(dir, { recursive: true, force: true });
  });

  it('declares the extension with directory reads, and the resources it needs', () => {
    const caps = client.getServerCapabilities() as Record<string, unknown> & { extensions?: object };
    expect(caps.extensions).toMatchObject({ 'io.modelcontextprotocol/skills': { directoryRead: true } });
    expect(caps.resources).toBeDefined();
  });

  it('lists each skill with its frontmatter verbatim and digests that match the bytes read', async () => {
    const listed = await client.request({ method: 'skills/list', params: {} }, AnyResult);
    const skills = listed.skills as {
      uri: string;
      frontmatter: unknown;
      resources: { uri: string; digest: string; size: number }[];
    }[];
    expect(skills.map((s) => s.uri)).toEqual(['skill://pdf-processing/SKILL.md']);
    const [pdf] = skills;
    // Core schema: the date stays the string the file has.
    expect(pdf!.frontmatter).toEqual({
      name: 'pdf-processing',
      description: 'Extract, fill, and assemble PDF documents',
      metadata: { tier: '2', since: '2024-01-01' },
    });
    expect(pdf!.resources.map((r) => r.uri)).toEqual([
      'skill://pdf-processing/SKILL.md',
      'skill://pdf-processing/references/FORMS.md',
    ]);
    for (const file of pdf!.resources) {
      const read = await client.readResource({ uri: file.uri });
      const text = (read.contents[0] as { text: string }).text;
      expect(file.digest).toBe(`sha256:${createHash('sha256').update(text).digest('hex')}`);
      expect(file.size).toBe(Buffer.byteLength(text));
    }
    const read = await client.readResource({ uri: 'skill://pdf-processing/SKILL.md' });
    expect(read.contents[0]).toMatchObject({ mimeType: 'text/markdown', text: PDF_MD });
  });

  it('gets one skill, lists a directory, and answers -32602 for what is not served', async () => {
    const got = await client.request(
      { method: 'skills/get', params: { uri: 'skill://pdf-processing/SKILL.md' } },
      AnyResult,
    );
    expect(got.skill).toMatchObject({
      uri: 'skill://pdf-processing/SKILL.md',
      frontmatter: { name: 'pdf-processing' },
    });
    expect(got.nextCursor).toBeUndefined();
    const children = await client.request(
      { method: 'resources/directory/read', params: { uri: 'skill://pdf-processing' } },
      AnyResult,
    );
    expect(children.resources).toEqual([
      {
        uri: 'skill://pdf-processing/SKILL.md',
        name: 'SKILL.md',
        mimeType: 'text/markdown',
        size: PDF_MD.length,
      },
      { uri: 'skill://pdf-processing/references', name: 'references', mimeType: 'inode/directory' },
    ]);
    await expect(
      client.request({ method: 'skills/get', params: { uri: 'skill://nope/SKILL.md' } }, AnyResult),
    ).rejects.toMatchObject({ code: -32602 });
    await expect(
      client.request(
        { method: 'resources/directory/read', params: { uri: 'skill://pdf-processing/SKILL.md' } },
        AnyResult,
      ),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it('lets the chain hide a skill: absent from skills/list and resources/list, refused by skills/get', async () => {
    const resources = (await client.listResources()).resources.map((r) => r.uri);
    expect(resources).toContain('skill://pdf-processing/SKILL.md');
    expect(resources.some((uri) => uri.includes('internal-ops'))).toBe(false);
    await expect(
      client.request({ method: 'skills/get', params: { uri: 'skill://internal-ops/SKILL.md' } }, AnyResult),
    ).rejects.toMatchObject({ code: -32602 });
    const unknown = await client
      .readResource({ uri: 'skill://nope/SKILL.md' })
      .catch((e: { code: number }) => e.code);
    const hidden = await client
      .readResource({ uri: 'skill://internal-ops/SKILL.md' })
      .catch((e: { code: number }) => e.code);
    expect(hidden).toBe(unknown);
    expect(typeof hidden).toBe('number');
  });
});

describe('mcplite skills', () => {
  it('lists the skills of a server given a directory (mcplite/node) and prints one', {
    timeout: 60_000,
  }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'mcplite-skills-cli-'));
    mkdirSync(join(root, 'pdf-processing'));
    writeFileSync(join(root, 'pdf-processing', 'SKILL.md'), PDF_MD);
    const running = await serve(createServer({ name: 's', tools: [], skills: root }), {
      port: 0,
      grpc: false,
    });
    try {
      const listed = runCli(['skills', `${running.url}/mcp`, '--json']);
      expect(await listed.exited, listed.stderr()).toBe(0);
      expect(JSON.parse(listed.stdout())).toEqual({
        skills: [
          {
            name: 'pdf-processing',
            description: 'Extract, fill, and assemble PDF documents',
            uri: 'skill://pdf-processing/SKILL.md',
          },
        ],
      });
      const shown = runCli(['skills', `${running.url}/mcp`, 'pdf-processing']);
      expect(await shown.exited, shown.stderr()).toBe(0);
      expect(shown.stdout()).toBe(PDF_MD);
    } finally {
      await running.close(1000);
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('loadSkills bounds', () => {
  it('refuses a skill with more files or bytes than allowed, and a SKILL.md without frontmatter', async () => {
    const root = mkdtempSync(join(tmpdir(), 'mcplite-skills-bounds-'));
    try {
      mkdirSync(join(root, 'big'));
      writeFileSync(join(root, 'big', 'SKILL.md'), '---\nname: big\ndescription: Big\n---\n');
      for (let i = 0; i < 5; i++) writeFileSync(join(root, 'big', `f${i}.txt`), 'x'.repeat(100));
      await expect(loadSkills(root, { maxFiles: 3 })).rejects.toMatchObject({ code: 'invalid_params' });
      await expect(loadSkills(root, { maxBytes: 200 })).rejects.toMatchObject({ code: 'invalid_params' });
      expect((await loadSkills(root)).length).toBe(1);
      writeFileSync(join(root, 'big', 'SKILL.md'), 'no frontmatter');
      const skills = await loadSkills(root);
      expect(() => createServer({ name: 'x', tools: [], skills })).toThrow(/frontmatter/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a skills directory given to createServer', () => {
  it('is read where the runtime has a file system, and named when it cannot be read', async () => {
    const own = mkdtempSync(join(tmpdir(), 'mcplite-skills-dir-'));
    mkdirSync(join(own, 'notes'));
    writeFileSync(
      join(own, 'notes', 'SKILL.md'),
      '---\nname: notes\ndescription: Takes notes\n---\nWrite them down.\n',
    );
    const server = createServer({ name: 'x', tools: [], skills: own });
    const listed = createServer({ name: 'y', tools: [], skills: await loadSkills(own) });
    rmSync(own, { recursive: true, force: true });
    // The directory read by createServer and the list read by loadSkills serve the same skill resources.
    expect(server.resources.list().map((r) => r.uri)).toEqual(listed.resources.list().map((r) => r.uri));
    expect(server.resources.list().length).toBeGreaterThan(0);
    const missing = join(tmpdir(), 'mcplite-no-such-skills-dir');
    let err: unknown;
    try {
      createServer({ name: 'x', tools: [], skills: missing });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(McpLiteError);
    expect(err).toMatchObject({ code: 'invalid_params' });
    expect((err as Error).message).toContain(`cannot read the skills directory ${missing}`);
  });
});
