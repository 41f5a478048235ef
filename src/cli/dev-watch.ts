import { type Dirent, existsSync, type FSWatcher, readdirSync, watch } from 'node:fs';
import { join, relative } from 'node:path';

/** Folders never watched: dependencies, version control, build output. */
const IGNORED = /^(?:node_modules|\.git|dist)$/;
/** Most folders watched: a tree beyond it is not a tool module's source (each folder holds one watch). */
const MAX_FOLDERS = 2_000;

/** A watch on a source tree; `close` ends it. */
export interface SourceWatch {
  close(): void;
}

/**
 * Calls `onChange(file)` (relative to `root`) whenever a file in `root` or a folder below it is written, created,
 * renamed or removed. Every folder has a watch of its own, never a file: an editor's safe save (write a temporary
 * file, rename it over the old one, as `sed -i` and vim do) replaces the file's inode, which ends a watch on the
 * file itself (Node 20's recursive watch on Linux watches files so, and went deaf after the first such save),
 * while the folder's watch sees every save alike. Folders created later are watched as they appear.
 */
export function watchSources(root: string, onChange: (file: string) => void): SourceWatch {
  const watchers = new Map<string, FSWatcher>();
  const add = (dir: string) => {
    if (watchers.has(dir) || watchers.size >= MAX_FOLDERS) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (_event, name) => {
        if (!name) return;
        const path = join(dir, name.toString());
        // A new folder (or one renamed in) is watched from now on; a folder removed loses its watch, so that one
        // made again under the same name is watched afresh.
        const gone = watchers.get(path);
        if (gone && !existsSync(path)) {
          gone.close();
          watchers.delete(path);
        }
        if (!IGNORED.test(name.toString())) addTree(path);
        onChange(relative(root, path));
      });
    } catch {
      return; // Not a folder, or gone already.
    }
    watcher.on('error', () => {
      watcher.close();
      watchers.delete(dir);
    });
    watchers.set(dir, watcher);
  };
  const addTree = (dir: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    add(dir);
    for (const entry of entries) {
      if (entry.isDirectory() && !IGNORED.test(entry.name)) addTree(join(dir, entry.name));
    }
  };
  addTree(root);
  return {
    close() {
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
