/**
 * Run under `node --disallow-code-generation-from-strings`: compiles the schema given as JSON in argv[2] and
 * validates each value of argv[3], printing one JSON line per value: the value with its defaults, or the error.
 */
import { modulesLoaded } from '../../src/core/deferred-modules.js';
import { compileValidator } from '../../src/core/schema.js';

const schema = JSON.parse(process.argv[2]!) as Record<string, unknown>;
const values = JSON.parse(process.argv[3]!) as unknown[];
const validate = compileValidator(schema, 'the probe');
// The interpreting validator is loaded on first need: a server's handler waits for it before its first request.
await modulesLoaded();
for (const value of values) {
  try {
    console.log(JSON.stringify({ value: validate(value) }));
  } catch (err) {
    const e = err as { code?: string; message: string; data?: unknown };
    console.log(JSON.stringify({ error: { code: e.code, message: e.message, data: e.data } }));
  }
}
