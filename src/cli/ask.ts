import { createInterface } from 'node:readline/promises';
import type { ElicitationOutcome } from '../client/index.js';
import { coerceValue } from './coerce.js';
import { CliError } from './errors.js';
import { printable, style } from './render.js';

/**
 * Asks an elicitation's questions on the terminal, one prompt per property of the requested schema (per
 * request when there are several), typed by the schema. An empty answer skips an optional field.
 */
export async function askOnTerminal(outcome: ElicitationOutcome): Promise<Record<string, unknown>> {
  const s = style(true);
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    if (outcome.requests) {
      const answers: Record<string, unknown> = {};
      for (const [name, request] of Object.entries(outcome.requests)) {
        process.stderr.write(`${s.bold('?')} ${printable(request.message)}\n`);
        answers[name] = await askForm(rl, request.requestedSchema);
      }
      return answers;
    }
    process.stderr.write(`${s.bold('?')} ${printable(outcome.message)}\n`);
    return await askForm(rl, outcome.requestedSchema);
  } finally {
    rl.close();
  }
}

type Rl = ReturnType<typeof createInterface>;

async function askForm(rl: Rl, schema: unknown): Promise<Record<string, unknown>> {
  const form = (schema ?? {}) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const required = new Set(form.required ?? []);
  const values: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(form.properties ?? {})) {
    const label = typeof prop.title === 'string' ? prop.title : key;
    const hint = [
      typeof prop.description === 'string' ? prop.description : undefined,
      Array.isArray(prop.enum) ? `one of ${prop.enum.join(', ')}` : undefined,
      typeof prop.type === 'string' ? prop.type : undefined,
      prop.default !== undefined ? `default ${JSON.stringify(prop.default)}` : undefined,
    ]
      .filter(Boolean)
      .join('; ');
    for (;;) {
      const raw = (
        await rl.question(
          printable(
            `  ${label}${required.has(key) ? '' : ' (optional)'}${hint ? ` [${hint}]` : ''}: `,
            false,
          ),
        )
      ).trim();
      if (raw === '') {
        if (prop.default !== undefined) values[key] = prop.default;
        if (!required.has(key) || prop.default !== undefined) break;
        process.stderr.write('    an answer is required\n');
        continue;
      }
      try {
        values[key] = coerceValue(key, raw, prop);
        break;
      } catch (err) {
        process.stderr.write(`    ${printable(err instanceof CliError ? err.message : String(err))}\n`);
      }
    }
  }
  return values;
}
