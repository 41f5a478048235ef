import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { OAuthRecord, OAuthStore } from '../client/oauth.js';

/** The directory of the CLI's OAuth records: `$XDG_CONFIG_HOME/mcplite/oauth`, else `~/.config/mcplite/oauth`. */
export function tokenDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'mcplite', 'oauth');
}

/** The file of one server's record: named by a digest of its URL, so no URL shapes a path. */
export function tokenFile(server: string, dir = tokenDir()): string {
  return join(dir, `${createHash('sha256').update(server).digest('hex').slice(0, 32)}.json`);
}

/**
 * The CLI's `OAuthStore`: one JSON file per server, readable and writable by the user only (0600, in a 0700
 * directory), written whole to a temporary file and renamed, so a reader never sees half a record and a crash
 * never leaves a token in a file anyone else can read.
 */
export function fileOAuthStore(dir = tokenDir()): OAuthStore {
  return {
    async load(server) {
      let text: string;
      try {
        text = await readFile(tokenFile(server, dir), 'utf8');
      } catch {
        return undefined;
      }
      try {
        const stored = JSON.parse(text) as { server?: string; record?: OAuthRecord };
        // Another server's record under a colliding name is not this one's.
        return stored.server === server ? stored.record : undefined;
      } catch {
        return undefined;
      }
    },
    async save(server, record) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chmod(dir, 0o700);
      const file = tokenFile(server, dir);
      const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temporary, JSON.stringify({ server, record }), { mode: 0o600 });
      await rename(temporary, file);
    },
    async delete(server) {
      await unlink(tokenFile(server, dir)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    },
  };
}
