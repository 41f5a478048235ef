import { createHash } from 'node:crypto';
import { defineTool, elicit } from '../../src/index.js';
import { categories, inCategory } from './documents.js';

/** Arguments of subscribe_digest: anything missing is asked for by elicitation. */
export interface SubscribeArgs {
  category?: string;
  email?: string;
  frequency?: 'daily' | 'weekly';
}

type Field = 'category' | 'email' | 'frequency';

const FIELDS: Record<Field, Record<string, unknown>> = {
  email: { type: 'string', format: 'email', description: 'Where to send the digest' },
  frequency: { type: 'string', enum: ['daily', 'weekly'], description: 'How often' },
  category: { type: 'string', enum: [...categories], description: 'Which category to follow' },
};

/**
 * What subscribe_digest answers once it has everything: the tool's outputSchema (and so the `documents` webtool
 * action's responseSchema). Over MCP, a client that can be asked gets `elicitation/create` (or `input_required`)
 * and then this object as structuredContent.
 */
export const SUBSCRIPTION_SCHEMA = {
  type: 'object',
  required: ['subscribed', 'subscription_id', 'email', 'category', 'frequency', 'message'],
  properties: {
    subscribed: { const: true },
    subscription_id: { type: 'string', pattern: '^sub_[0-9a-f]{12}$' },
    email: { type: 'string' },
    category: { type: 'string' },
    frequency: { enum: ['daily', 'weekly'] },
    documents_in_category: { type: 'integer', minimum: 0 },
    message: { type: 'string' },
  },
};

/**
 * Subscribes to a digest of new documents. Whatever is missing (category, email, frequency) is asked for with
 * an elicitation; the client calls again with the answers and the signed state, and gets a confirmation. The
 * server stores nothing: the subscription id is derived from its contents, like an order number.
 */
export const subscribeDigest = defineTool<SubscribeArgs>({
  name: 'subscribe_digest',
  '@type': 'action',
  description: 'Subscribe to a daily or weekly email digest of new documents in a category',
  inputSchema: {
    type: 'object',
    properties: {
      category: FIELDS.category,
      email: FIELDS.email,
      frequency: FIELDS.frequency,
    },
  },
  outputSchema: SUBSCRIPTION_SCHEMA,
  handler: (args, ctx) => {
    // The second round: the first round's arguments come back in the signed context, the rest in the answers.
    const given: SubscribeArgs = {
      ...args,
      ...((ctx.elicitation?.context as SubscribeArgs | undefined) ?? {}),
      ...((ctx.elicitation?.answers as SubscribeArgs | undefined) ?? {}),
    };
    const missing = (['email', 'frequency', 'category'] as const).filter((f) => given[f] === undefined);
    if (missing.length > 0) {
      return elicit({
        message: `To subscribe, please provide: ${missing.join(', ')}.`,
        schema: {
          type: 'object',
          properties: Object.fromEntries(missing.map((f) => [f, FIELDS[f]])),
          required: missing,
        },
        context: given,
      });
    }
    const { category, email, frequency } = given as Required<SubscribeArgs>;
    const id = createHash('sha256').update(`${email}\n${category}\n${frequency}`).digest('hex').slice(0, 12);
    return {
      subscribed: true,
      subscription_id: `sub_${id}`,
      email,
      category,
      frequency,
      documents_in_category: inCategory(category).length,
      message: `You will receive a ${frequency} digest of new ${category} documents at ${email}.`,
    };
  },
});
